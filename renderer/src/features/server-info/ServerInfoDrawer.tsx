/**
 * The server info panel: what a server said at initialize (name, title, version, website, icons,
 * protocol version and era, instructions, capabilities), what Switchboard declared, and what the
 * server actually did since it connected — every mismatch listed ("declared vs did"). Opened from
 * the server's menu in the sidebar (and its name elsewhere) through `serverInfoPanel.open(id)`.
 * Everything shown came from the server: text is text (SafeText), icons are drawn only from
 * data: images, links open only as https after the usual checks.
 */
import { Alert, Anchor, Badge, Button, Drawer, Group, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import type { ObservedMethod, ServerInfo, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { AppBadge, VisibilityBadge } from '../../components/AppBadge';
import { isAppTool, type AppTool } from '../../components/app-tool';
import { SafeLabel, SafeText } from '../../components/SafeText';
import { navigation } from '../../state/navigation';
import { useStore } from '../../state/useStore';
import { openConsented } from '../requests';
import { appsDeclaredLine, appsExtension, capabilityRows, describeMismatch, iconVerdict, serverInfoPanel } from './model';

const REFRESH_MS = 1_000;

export function ServerInfoDrawer({ servers }: { servers: ServerStatus[] }) {
  const openId = useStore(serverInfoPanel);
  const server = servers.find((s) => s.id === openId);
  return (
    <Drawer
      opened={openId !== undefined}
      onClose={() => serverInfoPanel.close()}
      position="right"
      size={560}
      title={<Text fw={600}>Server info</Text>}
      data-testid="server-info"
    >
      {openId && !server && <Text c="dimmed">This server was removed.</Text>}
      {server && <Panel server={server} />}
    </Drawer>
  );
}

function Panel({ server }: { server: ServerStatus }) {
  const api = useApi();
  const [info, setInfo] = useState<ServerInfo | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const load = () =>
      api.serverInfo({ id: server.id }).then(
        (value) => live && (setInfo(value), setError(undefined)),
        (e: Error) => live && setError(e.message),
      );
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api, server.id, server.state]);

  const impl = info?.implementation;
  const icon = impl?.icons?.find((i) => iconVerdict(i).kind === 'image');
  return (
    <Stack gap="md" data-testid="server-info-panel" data-server-id={server.id}>
      <Group gap="sm" wrap="nowrap" align="flex-start">
        {icon ? (
          <img src={icon.src} alt="" width={40} height={40} style={{ objectFit: 'contain', flex: 'none', borderRadius: 6 }} data-testid="server-info-icon" />
        ) : (
          <div style={{ width: 40, height: 40, flex: 'none', borderRadius: 6, background: 'var(--mantine-color-default-hover)' }} />
        )}
        <div style={{ minWidth: 0, flex: 1 }}>
          <Title order={4} style={{ overflowWrap: 'anywhere' }} data-testid="server-info-title">
            <SafeText inline text={impl?.title ?? impl?.name ?? server.name} clip={200} />
          </Title>
          <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="server-info-name">
            {impl ? (
              <>
                <SafeText inline text={impl.name} clip={200} />
                {impl.version ? <> · version <SafeText inline text={impl.version} clip={100} /></> : ' · no version'}
              </>
            ) : (
              <>configured as “{server.name}”</>
            )}
          </Text>
          {impl?.websiteUrl && <Website url={impl.websiteUrl} />}
        </div>
      </Group>

      <Group gap={6}>
        <Badge variant="light" color={server.state === 'connected' ? 'teal' : 'gray'} data-testid="server-info-state">
          {server.state}
        </Badge>
        {info?.era && (
          <Badge variant="outline" color="indigo" data-testid="server-info-era">
            {info.era} era
          </Badge>
        )}
        {info?.protocolVersion && (
          <Badge variant="outline" color="gray" style={{ textTransform: 'none' }} data-testid="server-info-protocol">
            protocol {info.protocolVersion}
          </Badge>
        )}
        {info?.transport && (
          <Badge variant="outline" color="gray" style={{ textTransform: 'none' }}>
            {info.transport}
          </Badge>
        )}
        {info?.connectedAt && (
          <Text size="xs" c="dimmed">
            connected at {new Date(info.connectedAt).toLocaleTimeString([], { hour12: false })}
          </Text>
        )}
      </Group>

      {error && (
        <Alert color="red" variant="light" title="Could not read the server info">
          {error}
        </Alert>
      )}
      {info && !info.known && (
        <Text c="dimmed" size="sm" data-testid="server-info-unknown">
          Not connected in this session yet: connect the server to see what it declares.
        </Text>
      )}

      {info?.known && (
        <>
          <Section title="Declared vs did" hint="What the server did since it connected that its capabilities (or ours) do not cover, and what it refused although it declared it.">
            {info.mismatches.length === 0 ? (
              <Text size="sm" c="teal" data-testid="server-info-consistent">
                Nothing it did goes beyond what it declared.
              </Text>
            ) : (
              <Stack gap={6} data-testid="server-info-mismatches">
                {info.mismatches.map((m) => (
                  <Group key={`${m.kind}:${m.method}`} gap={8} wrap="nowrap" align="flex-start" data-testid="server-info-mismatch" data-kind={m.kind} data-method={m.method} data-capability={m.capability}>
                    <Badge size="sm" variant="light" color={m.kind === 'refused' ? 'orange' : 'red'} style={{ flex: 'none' }}>
                      {m.kind === 'refused' ? 'refused' : m.kind === 'unasked' ? 'unasked' : 'undeclared'}
                    </Badge>
                    <Text size="sm" component="div" style={{ flex: 1, minWidth: 0 }}>
                      <SafeText text={describeMismatch(m)} clip={400} />
                    </Text>
                    {m.firstSeq !== undefined && (
                      <Anchor size="xs" component="button" style={{ flex: 'none' }} onClick={() => (serverInfoPanel.close(), navigation.showTraffic({ kind: 'seq', seq: m.firstSeq! }))}>
                        #{m.firstSeq}
                      </Anchor>
                    )}
                  </Group>
                ))}
              </Stack>
            )}
          </Section>

          <Section title="Instructions" hint="What the server tells a model about using it (its words, shown as text).">
            {info.instructions ? (
              <div style={{ maxHeight: 220, overflow: 'auto', padding: 8, borderRadius: 4, background: 'var(--mantine-color-default-hover)', fontSize: 13 }} data-testid="server-info-instructions">
                <SafeText text={info.instructions} clip={4_000} />
                {info.instructionsCut ? <Text size="xs" c="dimmed">… {info.instructionsCut.toLocaleString()} more characters not kept</Text> : null}
              </div>
            ) : (
              <Text size="sm" c="dimmed" data-testid="server-info-instructions-none">
                The server sent no instructions.
              </Text>
            )}
          </Section>

          <Group grow align="flex-start" gap="md">
            <Section title="Server declared">
              <Capabilities caps={info.serverCapabilities} testId="server-info-server-caps" />
            </Section>
            <Section title="Switchboard declared">
              <Capabilities caps={info.clientCapabilities} testId="server-info-client-caps" />
            </Section>
          </Group>

          <Section title="MCP Apps" hint="Tools with an interface of their own (_meta.ui.resourceUri), run in a sandbox from the Apps view.">
            <Apps server={server} info={info} />
          </Section>

          <Section title="Seen since it connected" hint="Counted from the trace since the last connect (the version probe is not counted).">
            <Observed title="notifications from the server" items={info.notifications} testId="server-info-notifications" />
            <Observed title="requests from the server" items={info.requests} testId="server-info-requests" />
            <Observed title="our requests it answered Method not found" items={info.refused} testId="server-info-refused" />
          </Section>

          {impl?.icons && impl.icons.length > 0 && (
            <Section title="Icons">
              <Stack gap={4} data-testid="server-info-icons">
                {impl.icons.map((i, n) => {
                  const verdict = iconVerdict(i);
                  return (
                    <Group key={n} gap={8} wrap="nowrap" data-testid="server-info-icon-row" data-verdict={verdict.kind}>
                      {verdict.kind === 'image' ? <img src={i.src} alt="" width={20} height={20} style={{ objectFit: 'contain', flex: 'none' }} /> : <span style={{ width: 20, flex: 'none' }} />}
                      <Text size="xs" ff="monospace" truncate style={{ flex: 1, minWidth: 0 }} title={i.src.slice(0, 300)}>
                        {i.src.slice(0, 120)}
                      </Text>
                      <Text size="xs" c={verdict.kind === 'refused' ? 'red' : 'dimmed'} style={{ flex: 'none', maxWidth: 220 }}>
                        {verdict.kind === 'image' ? [i.mimeType, i.sizes?.join(' ')].filter(Boolean).join(' · ') || 'shown' : verdict.reason}
                      </Text>
                    </Group>
                  );
                })}
              </Stack>
            </Section>
          )}
        </>
      )}
    </Stack>
  );
}

/** Whether the extension was declared (ours, and the server's), and the server's tools with an app, each with its App badge. */
function Apps({ server, info }: { server: ServerStatus; info: ServerInfo }) {
  const api = useApi();
  const [tools, setTools] = useState<AppTool[] | undefined>();
  const connected = server.state === 'connected';
  useEffect(() => {
    let live = true;
    if (!connected) {
      setTools(undefined);
      return;
    }
    api.listTools().then(
      (list) => live && setTools(list.filter((t): t is AppTool => t.serverId === server.id && isAppTool(t))),
      () => live && setTools(undefined),
    );
    return () => {
      live = false;
    };
  }, [api, server.id, connected, server.toolCount, server.since]);
  const serverSide = appsExtension(info.serverCapabilities);
  return (
    <Stack gap={4} data-testid="server-info-apps">
      <Text size="sm" data-testid="server-info-apps-declared" data-declared={appsExtension(info.clientCapabilities).declared}>
        {appsDeclaredLine(info.clientCapabilities, server.config.apps)}
      </Text>
      {serverSide.declared && (
        <Text size="xs" c="dimmed">
          The server declares the extension in its capabilities too.
        </Text>
      )}
      {tools === undefined ? null : tools.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="server-info-apps-none">
          None of its tools declares an app.
        </Text>
      ) : (
        <Stack gap={2}>
          {tools.slice(0, 200).map((t) => (
            <Group key={t.name} gap={6} wrap="nowrap" data-testid="server-info-app-tool" data-tool={t.name}>
              <Text size="sm" ff="monospace" truncate style={{ minWidth: 0 }}>
                <SafeLabel text={t.originalName} max={120} />
              </Text>
              <AppBadge ui={t.ui} />
              <VisibilityBadge tool={t} />
              <Text size="xs" c="dimmed" ff="monospace" truncate style={{ flex: 1, minWidth: 0 }} title={t.ui.resourceUri.slice(0, 300)}>
                {t.ui.resourceUri.slice(0, 120)}
              </Text>
            </Group>
          ))}
          {tools.length > 200 && (
            <Text size="xs" c="dimmed">
              … {tools.length - 200} more
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}

function Website({ url }: { url: string }) {
  const api = useApi();
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <Group gap={6} mt={2} wrap="nowrap">
      <Tooltip label={url.slice(0, 300)} multiline maw={360}>
        <Button size="compact-xs" variant="subtle" onClick={() => openConsented(api, url).catch((e: Error) => setProblem(e.message))} data-testid="server-info-website">
          Website ↗
        </Button>
      </Tooltip>
      <Text size="xs" c={problem ? 'red' : 'dimmed'} truncate style={{ minWidth: 0 }}>
        {problem ?? url.slice(0, 120)}
      </Text>
    </Group>
  );
}

function Section({ title, hint, children }: { title: string; hint?: string; children: ReactNode }) {
  return (
    <Stack gap={4}>
      <Tooltip label={hint} disabled={!hint} multiline maw={360} position="top-start">
        <Text size="xs" fw={700} tt="uppercase" c="dimmed" style={{ letterSpacing: '0.03em' }}>
          {title}
        </Text>
      </Tooltip>
      {children}
    </Stack>
  );
}

function Capabilities({ caps, testId }: { caps?: Record<string, unknown>; testId: string }) {
  const rows = capabilityRows(caps);
  if (!rows.length) return <Text size="sm" c="dimmed" data-testid={testId}>none</Text>;
  return (
    <Table withRowBorders={false} verticalSpacing={2} horizontalSpacing={4} data-testid={testId}>
      <Table.Tbody>
        {rows.map((r) => (
          <Table.Tr key={r.name} data-capability={r.name}>
            <Table.Td style={{ fontWeight: 600, verticalAlign: 'top', whiteSpace: 'nowrap' }}>
              <Text size="sm" ff="monospace">
                {r.name}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                {r.detail}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Observed({ title, items, testId }: { title: string; items: ObservedMethod[]; testId: string }) {
  return (
    <Stack gap={2} data-testid={testId}>
      <Text size="xs" c="dimmed">
        {title}
      </Text>
      <Group gap={4} wrap="wrap">
        {items.length === 0 ? (
          <Text size="xs" c="dimmed" fs="italic">
            none
          </Text>
        ) : (
          items.map((m) => (
            <Badge key={m.method} size="sm" variant="default" style={{ textTransform: 'none', fontWeight: 500, maxWidth: '100%' }} data-method={m.method}>
              {m.method.slice(0, 80)} × {m.count.toLocaleString()}
            </Badge>
          ))
        )}
      </Group>
    </Stack>
  );
}
