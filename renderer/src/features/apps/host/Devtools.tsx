/**
 * The Devtools strip under an app's frame: the last bridge messages both ways (click one for its
 * JSON), the effective CSP with what was refused and why, the host context last sent, and
 * buttons that resend the tool input or result and change theme, display mode and size, to see
 * how the app reacts. It reads the transport's window once per flush (never per message).
 */
import { Badge, Button, Group, ScrollArea, Select, Stack, Tabs, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { McpUiDisplayMode, McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useMemo, useState, useSyncExternalStore } from 'react';
import type { AppInstance } from '../../../../../contract';
import { JsonTree } from '../../../components/JsonTree';
import { SafeText } from '../../../components/SafeText';
import { formatTime, plural } from '../../../components/format';
import type { BridgeTransport, RecentMessage } from './bridge-transport';
import { DISPLAY_MODES, SIZE_PRESETS, cspLines, type SizePreset } from './host-context';
import classes from './app-host.module.css';

const NO_MESSAGES: RecentMessage[] = [];
const TABS = [
  ['messages', 'Messages'],
  ['csp', 'CSP'],
  ['context', 'Context'],
] as const;

function StripSelect({ label, value, data, onChange, testId }: { label: string; value: string; data: { value: string; label: string }[]; onChange(value: string): void; testId: string }) {
  return (
    <Select
      size="xs"
      w={120}
      aria-label={label}
      value={value}
      onChange={(v) => v && onChange(v)}
      data={data}
      allowDeselect={false}
      comboboxProps={{ withinPortal: true }}
      data-testid={testId}
    />
  );
}

export interface DevtoolsProps {
  instance: AppInstance;
  transport: BridgeTransport | null;
  hostContext: McpUiHostContext | null;
  theme: 'light' | 'dark';
  displayMode: McpUiDisplayMode;
  size: SizePreset;
  canResendInput: boolean;
  canResendResult: boolean;
  onResendInput(): void;
  onResendResult(): void;
  onTheme(): void;
  onDisplayMode(mode: McpUiDisplayMode): void;
  onSize(size: SizePreset): void;
}

export function Devtools(props: DevtoolsProps) {
  const [open, setOpen] = useState(true);
  const [tab, setTab] = useState<string>('messages');
  return (
    <div className={classes.devtools} data-testid="app-devtools" data-open={open}>
      <Group gap={6} px={8} py={4} wrap="wrap" className={classes.devtoolsBar}>
        <UnstyledButton onClick={() => setOpen((o) => !o)} aria-expanded={open} className={classes.devtoolsToggle} data-testid="app-devtools-toggle">
          <Text size="xs" fw={600}>
            {open ? '▾' : '▸'} Devtools
          </Text>
        </UnstyledButton>
        <div style={{ flex: 1 }} />
        <Tooltip label="Send the tool input again (ui/notifications/tool-input)">
          <Button size="compact-xs" variant="default" disabled={!props.canResendInput} onClick={props.onResendInput} data-testid="app-resend-input">
            Resend input
          </Button>
        </Tooltip>
        <Tooltip label="Send the last result again (ui/notifications/tool-result)">
          <Button size="compact-xs" variant="default" disabled={!props.canResendResult} onClick={props.onResendResult} data-testid="app-resend-result">
            Resend result
          </Button>
        </Tooltip>
        <Tooltip label="Tell the app the theme is the other one (host-context-changed); Switchboard's own stays as it is">
          <Button size="compact-xs" variant="default" onClick={props.onTheme} data-testid="app-theme" data-theme={props.theme}>
            Theme: {props.theme}
          </Button>
        </Tooltip>
        <StripSelect label="Display mode" value={props.displayMode} data={DISPLAY_MODES.map((m) => ({ value: m, label: m === 'pip' ? 'picture-in-picture' : m }))} onChange={(v) => props.onDisplayMode(v as McpUiDisplayMode)} testId="app-display-mode" />
        <StripSelect label="Container size" value={props.size} data={SIZE_PRESETS.map((p) => ({ value: p.value, label: p.label }))} onChange={(v) => props.onSize(v as SizePreset)} testId="app-size" />
      </Group>
      {open && (
        <Tabs value={tab} onChange={(v) => v && setTab(v)} keepMounted={false}>
          <Tabs.List px={8}>
            {TABS.map(([value, label]) => (
              <Tabs.Tab key={value} value={value} data-testid={`app-devtools-${value}`}>
                {label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value="messages">
            <Messages transport={props.transport} />
          </Tabs.Panel>
          <Tabs.Panel value="csp">
            <CspPanel instance={props.instance} />
          </Tabs.Panel>
          <Tabs.Panel value="context">
            <div className={classes.panelBody} data-testid="app-context-json">
              {props.hostContext ? <JsonTree value={props.hostContext} expandDepth={1} /> : <Text size="xs" c="dimmed">Nothing sent yet.</Text>}
            </div>
          </Tabs.Panel>
        </Tabs>
      )}
    </div>
  );
}

function useRecent(transport: BridgeTransport | null): RecentMessage[] {
  const subscribe = useMemo(() => (transport ? transport.changes.subscribe : () => () => undefined), [transport]);
  const version = useSyncExternalStore(subscribe, transport ? transport.changes.getVersion : () => 0);
  // One copy per flush (the version moves at most once per flush), newest first.
  return useMemo(() => (transport ? transport.recent().reverse() : NO_MESSAGES), [transport, version]);
}

function Messages({ transport }: { transport: BridgeTransport | null }) {
  const list = useRecent(transport);
  const [picked, setPicked] = useState<RecentMessage | null>(null);
  const stats = transport?.stats;
  return (
    <div className={classes.messages}>
      <ScrollArea.Autosize mah={260} className={classes.messageList} data-testid="app-messages">
        {list.length === 0 && (
          <Text size="xs" c="dimmed" p={8}>
            No bridge messages yet.
          </Text>
        )}
        {list.map((m, i) => (
          <UnstyledButton key={`${m.ts}-${i}-${m.label}`} className={classes.messageRow} data-active={picked === m} onClick={() => setPicked(m)} data-testid="app-message" data-dir={m.dir} data-method={m.label} data-refused={m.refused ? 'true' : undefined}>
            <span className={classes.messageTime}>{formatTime(m.ts)}</span>
            <span className={classes.messageDir} title={m.dir === 'out' ? 'Switchboard → app' : 'app → Switchboard'}>
              {m.dir === 'out' ? '→' : '←'}
            </span>
            <span className={classes.messageLabel}>
              <SafeText text={m.label} clip={120} inline />
            </span>
            {m.refused && (
              <Badge size="xs" color="red" variant="light">
                refused
              </Badge>
            )}
          </UnstyledButton>
        ))}
      </ScrollArea.Autosize>
      <div className={classes.messageDetail} data-testid="app-message-detail">
        {stats && (
          <Text size="xs" c="dimmed" mb={4}>
            {plural(stats.received, 'message')} in, {plural(stats.sent, 'message')} out{stats.dropped ? `, ${stats.dropped.toLocaleString()} dropped (flood)` : ''} · the last 200 are listed; every one is in Traffic.
          </Text>
        )}
        {picked ? (
          <Stack gap={4}>
            {picked.refused && (
              <Text size="xs" c="red" data-testid="app-message-refused">
                <SafeText text={picked.refused} clip={2000} inline />
              </Text>
            )}
            <JsonTree value={picked.message} expandDepth={3} />
          </Stack>
        ) : (
          <Text size="xs" c="dimmed">
            Click a message to see it whole.
          </Text>
        )}
      </div>
    </div>
  );
}

function CspPanel({ instance }: { instance: AppInstance }) {
  return (
    <div className={classes.panelBody}>
      <Stack gap={6}>
        <Text size="xs" fw={600}>
          Effective policy (the sandbox page's Content-Security-Policy header; the app's frame inherits it)
        </Text>
        <pre className={classes.csp} data-testid="app-csp">
          {cspLines(instance.csp).join('\n')}
        </pre>
        {instance.refused.length > 0 ? (
          <>
            <Text size="xs" fw={600}>
              Declared, and refused
            </Text>
            <Stack gap={2} data-testid="app-csp-refused">
              {instance.refused.map((r, i) => (
                <Text key={i} size="xs">
                  <span className="mono">{r.directive}</span> <span className="mono">
                    <SafeText text={r.value} clip={200} inline />
                  </span>
                  : <SafeText text={r.reason} clip={400} inline />
                </Text>
              ))}
            </Stack>
          </>
        ) : (
          <Text size="xs" c="dimmed">
            Nothing the resource declared was refused.
          </Text>
        )}
        {instance.notes.length > 0 && (
          <Stack gap={2} data-testid="app-csp-notes">
            {instance.notes.map((n, i) => (
              <Text key={i} size="xs" c="dimmed">
                <SafeText text={n} clip={600} inline />
              </Text>
            ))}
          </Stack>
        )}
      </Stack>
    </div>
  );
}
