/** The server list: live state, era, and everything you do to a server. */
import { Badge, Button, Group, Menu, Modal, ScrollArea, Stack, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import type { ClientFormat, LastCheck, ServerConfig, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { RowMenu } from '../../components/RowMenu';
import { copyText } from '../../components/download';
import { useSignInAction, useSignIns } from '../auth';
import { DriftBadge, DriftMenuItems } from '../drift';
import { navigation, useNavigation } from '../../state/navigation';
import { ImportModal } from './ImportModal';
import { CaptureModal } from '../capture';
import { ProxySessions } from '../proxy';
import { bulkConnect } from './bulk-connect';
import { ServerForm } from './ServerForm';
import { serverInfoPanel } from '../server-info';

/** The current time, re-rendering twice a second while something counts down. */
function useNow(active: boolean): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((t) => t + 1), 500);
    return () => clearInterval(timer);
  }, [active]);
  return Date.now();
}

export function stateLabel(server: ServerStatus, now: number): string {
  switch (server.state) {
    case 'connected':
      return `connected · ${server.era ?? ''} era${server.protocolVersion ? ` · ${server.protocolVersion}` : ''}`;
    case 'reconnecting': {
      const seconds = server.nextAttemptAt ? Math.max(0, Math.ceil((server.nextAttemptAt - now) / 1000)) : 0;
      return `reconnecting in ${seconds} s (attempt ${server.attempt ?? '?'})${server.error ? ` — ${server.error}` : ''}`;
    }
    case 'error':
      return `error: ${server.error ?? 'unknown'}`;
    case 'disconnected':
      return server.reason ? `disconnected: ${server.reason}` : 'disconnected';
    default:
      return server.state;
  }
}

/** What the dot says while main is unreachable: the last known state may no longer hold. */
export const UNKNOWN_STATE = "State unknown: Switchboard's main process is not reachable";

export function ServerSidebar({ servers, loaded, onChanged, linkUp = true }: { servers: ServerStatus[]; loaded: boolean; onChanged(): void; linkUp?: boolean }) {
  const api = useApi();
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  const [capturing, setCapturing] = useState(false);
  const [editing, setEditing] = useState<ServerConfig | null>(null);

  return (
    <Stack h="100%" gap="sm">
      <Group justify="space-between">
        <Text fw={600} size="sm">
          Servers
        </Text>
        <Group gap={6}>
          <Button size="compact-xs" variant="light" onClick={() => setImporting(true)} data-testid="import-open">
            Import
          </Button>
          <Tooltip label="Put Switchboard between another MCP client and its servers" openDelay={400}>
            <Button size="compact-xs" variant="light" onClick={() => setCapturing(true)} data-testid="capture-open">
              Capture
            </Button>
          </Tooltip>
          <Button size="compact-xs" onClick={() => setAdding(true)} data-testid="add-server-open">
            Add server
          </Button>
        </Group>
      </Group>
      {servers.length > 0 && <BulkActions servers={servers} onChanged={onChanged} />}
      <ScrollArea style={{ flex: 1 }}>
        <Stack gap={6} data-testid="server-list" data-loaded={loaded}>
          {loaded && servers.length === 0 && (
            <Text size="xs" c="dimmed">
              No servers yet. Add one, or import the ones your other MCP clients use.
            </Text>
          )}
          {servers.map((server) => (
            <ServerItem key={server.id} server={server} onChanged={onChanged} onEdit={() => setEditing(server.config)} linkUp={linkUp} />
          ))}
        </Stack>
        <ProxySessions />
      </ScrollArea>
      <Modal opened={adding} onClose={() => setAdding(false)} title="Add a server" size="md">
        <ServerForm
          submitLabel="Add and connect"
          onSubmit={async (input) => {
            const added = await api.addServer(input);
            setAdding(false);
            onChanged();
            if (!added.config.disabled) await api.connectServer({ id: added.id });
          }}
        />
      </Modal>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={`Edit ${editing?.name ?? ''}`} size="md">
        {editing && (
          <ServerForm
            initial={editing}
            submitLabel="Save"
            onSubmit={async (input) => {
              await api.updateServer({ id: editing.id, config: input });
              setEditing(null);
              onChanged();
            }}
          />
        )}
      </Modal>
      <ImportModal opened={importing} onClose={() => setImporting(false)} onImported={onChanged} />
      <CaptureModal opened={capturing} onClose={() => setCapturing(false)} />
    </Stack>
  );
}

/** "Connect all" / "Disconnect all": disabled servers are skipped; each server's outcome is its own. */
function BulkActions({ servers, onChanged }: { servers: ServerStatus[]; onChanged(): void }) {
  const api = useApi();
  const [busy, setBusy] = useState<'connect' | 'disconnect' | null>(null);
  const enabled = servers.filter((s) => !s.config.disabled);
  const canConnect = enabled.some((s) => !['connected', 'connecting', 'reconnecting'].includes(s.state));
  const canDisconnect = enabled.some((s) => s.state !== 'disconnected');
  const run = (what: 'connect' | 'disconnect') => {
    setBusy(what);
    void bulkConnect(api, what).finally(() => {
      setBusy(null);
      onChanged();
    });
  };
  return (
    <Group gap={6} data-testid="server-bulk-actions">
      <Button size="compact-xs" variant="light" loading={busy === 'connect'} disabled={!canConnect || busy !== null} onClick={() => run('connect')} data-testid="servers-connect-all">
        Connect all
      </Button>
      <Button size="compact-xs" variant="default" loading={busy === 'disconnect'} disabled={!canDisconnect || busy !== null} onClick={() => run('disconnect')} data-testid="servers-disconnect-all">
        Disconnect all
      </Button>
      {servers.length > enabled.length && (
        <Text size="xs" c="dimmed">
          {servers.length - enabled.length} disabled
        </Text>
      )}
    </Group>
  );
}

function ServerItem({ server, onChanged, onEdit, linkUp }: { server: ServerStatus; onChanged(): void; onEdit(): void; linkUp: boolean }) {
  const api = useApi();
  const nav = useNavigation();
  const now = useNow(server.state === 'reconnecting');
  const [testing, setTesting] = useState(false);
  // The reply to this page's own test, shown at once; a newer result (another window) wins.
  const [tested, setTested] = useState<LastCheck | undefined>();
  const selected = nav.serverId === server.id;
  const saved = server.config.lastCheck;
  const check = tested && (!saved || tested.at >= saved.at) ? tested : saved;
  const target = server.config.target;
  const signIn = useSignInAction();
  const signingIn = useSignIns(api).busy.has(server.id);
  const needsSignIn = server.state === 'error' && server.errorKind === 'auth';

  const act = (what: string, run: () => Promise<unknown>) => () =>
    run().then(onChanged, (e: Error) => notifications.show({ color: 'red', title: `${what} failed`, message: e.message }));

  const copyAs = (format: ClientFormat) =>
    act('Copy', async () => {
      const { text } = await api.exportServers({ ids: [server.id], format });
      await copyText(text);
      notifications.show({ title: 'Copied', message: `${server.name} as ${format} JSON is on the clipboard.` });
    })();

  return (
    <Stack
      gap={4}
      p={6}
      data-testid="server-item"
      data-server-name={server.name}
      data-server-id={server.id}
      data-state={linkUp ? server.state : 'unknown'}
      onClick={() => navigation.selectServer(selected ? undefined : server.id)}
      style={{
        borderRadius: 6,
        cursor: 'pointer',
        border: `1px solid ${selected ? 'var(--mantine-primary-color-filled)' : 'var(--mantine-color-default-border)'}`,
      }}
    >
      <Group gap={8} wrap="nowrap">
        <Tooltip label={linkUp ? stateLabel(server, now) : `${UNKNOWN_STATE} (last known: ${server.state}).`} multiline maw={320} withinPortal>
          <span
            className={`state-dot state-${linkUp ? server.state : 'unknown'}`}
            aria-label={linkUp ? server.state : 'state unknown'}
            data-testid="server-state-dot"
            data-state={linkUp ? server.state : 'unknown'}
          />
        </Tooltip>
        <Text size="sm" fw={500} truncate style={{ flex: 1 }}>
          {server.name}
        </Text>
        {server.era && (
          <Tooltip label={`Protocol ${server.protocolVersion ?? 'unknown'}`}>
            <Badge size="xs" variant="outline" data-testid="server-era">
              {server.era} {server.protocolVersion}
            </Badge>
          </Tooltip>
        )}
        <DriftBadge serverId={server.id} />
        <RowMenu label={`Actions for ${server.name}`} testId="server-menu">
            {server.state === 'connected' || server.state === 'connecting' || server.state === 'reconnecting' ? (
              <Menu.Item onClick={act('Disconnect', () => api.disconnectServer({ id: server.id }))}>Disconnect</Menu.Item>
            ) : (
              <Menu.Item disabled={server.config.disabled} onClick={act('Connect', () => api.connectServer({ id: server.id }))}>
                Connect
              </Menu.Item>
            )}
            <Menu.Item
              data-testid="server-test"
              onClick={() => {
                setTesting(true);
                act('Test connection', () => api.testServer({ id: server.id }).then(setTested))().finally(() => setTesting(false));
              }}
            >
              Test connection
            </Menu.Item>
            <Menu.Item onClick={() => serverInfoPanel.open(server.id)} data-testid="server-show-info">
              Server info…
            </Menu.Item>
            <Menu.Item onClick={() => navigation.showTraffic({ kind: 'server', serverId: server.id })}>Show traffic</Menu.Item>
            <Menu.Item onClick={() => navigation.showChecks({ serverId: server.id, tab: 'doctor', run: true })} data-testid="server-doctor">
              Diagnose connection…
            </Menu.Item>
            <Menu.Item onClick={() => navigation.showChecks({ serverId: server.id, tab: 'conformance' })} data-testid="server-conformance">
              Check this server (conformance)…
            </Menu.Item>
            <DriftMenuItems server={server} />
            {target.type === 'http' && (
              <Menu.Item onClick={() => navigation.showAuth(server.id)} data-testid="server-show-auth">
                Show sign-in (Auth)
              </Menu.Item>
            )}
            <Menu.Divider />
            <Menu.Item onClick={onEdit}>Edit…</Menu.Item>
            <Menu.Item onClick={act('Duplicate', () => api.duplicateServer({ id: server.id }))}>Duplicate</Menu.Item>
            <Menu.Sub>
              <Menu.Sub.Target>
                <Menu.Sub.Item>Copy config as</Menu.Sub.Item>
              </Menu.Sub.Target>
              <Menu.Sub.Dropdown>
                <Menu.Item onClick={() => copyAs('mcpServers')}>mcpServers (Claude, Cursor)</Menu.Item>
                <Menu.Item onClick={() => copyAs('vscode')}>VS Code</Menu.Item>
                <Menu.Item onClick={() => copyAs('switchboard')}>Switchboard</Menu.Item>
              </Menu.Sub.Dropdown>
            </Menu.Sub>
            <Menu.Divider />
            <Menu.Item color="red" onClick={act('Remove', () => api.removeServer({ id: server.id }))} data-testid="server-remove">
              Remove
            </Menu.Item>
        </RowMenu>
      </Group>
      <Text size="xs" c="dimmed" className="mono" truncate>
        {target.type === 'stdio' ? [target.command, ...target.args].join(' ') : target.url}
      </Text>
      {linkUp && server.state === 'reconnecting' && (
        <Text size="xs" c="yellow.7" data-testid="server-reconnecting" data-attempt={server.attempt} data-delay-ms={server.nextAttemptAt ? server.nextAttemptAt - server.since : undefined}>
          {stateLabel(server, now)}
        </Text>
      )}
      {server.state === 'error' && server.error && (
        <Text size="xs" c="red" className="pre-wrap" data-testid="server-error">
          {server.error}
        </Text>
      )}
      {(server.state === 'error' || needsSignIn) && (
        <Group gap={6} wrap="nowrap" onClick={(e) => e.stopPropagation()}>
          {needsSignIn && (
            <Button size="compact-xs" color="red" variant="light" loading={signingIn} disabled={server.config.disabled} onClick={() => signIn(server)} data-testid="server-signin">
              Sign in
            </Button>
          )}
          {server.state === 'error' && (
            <Button size="compact-xs" variant="light" onClick={() => navigation.showChecks({ serverId: server.id, tab: 'doctor', run: true })} data-testid="server-diagnose">
              Diagnose
            </Button>
          )}
          {needsSignIn && (
            <Button size="compact-xs" variant="subtle" onClick={() => navigation.showAuth(server.id)} data-testid="server-auth-details">
              Details
            </Button>
          )}
        </Group>
      )}
      {(testing || check) && (
        <Text size="xs" c={testing ? 'dimmed' : check?.ok ? 'green' : 'red'} data-testid="server-last-check" data-ok={check?.ok}>
          {testing
            ? 'Testing…'
            : check?.ok
              ? `✓ Test passed ${new Date(check.at).toLocaleTimeString()}: ${check.toolCount} tools, ${check.era} ${check.protocolVersion ?? ''} (${check.durationMs.toFixed(0)} ms)`
              : `✗ Test failed ${check ? new Date(check.at).toLocaleTimeString() : ''}: ${check?.error ?? ''}`}
        </Text>
      )}
    </Stack>
  );
}
