/**
 * Proxied sessions (#12) in the sidebar: each `switchboard proxy` process the app has found in
 * the library, with a "proxied" badge, its client's name, what it proxies, live/ended and its
 * events. A click opens Traffic on it; its menu opens Traffic, Timeline, Logs or the faults panel.
 */
import { Badge, Group, Menu, Stack, Text, Tooltip } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ProxySession } from '../../../../contract';
import { useApi } from '../../api/context';
import { RowMenu } from '../../components/RowMenu';
import { formatCount } from '../../components/format';
import { navigation, useNavigation, type View } from '../../state/navigation';
import { clientLabel, getProxySessions } from '../../state/proxy-sessions';
import { useStore } from '../../state/useStore';
import { FaultsPanel } from './FaultsPanel';

export function ProxySessions() {
  const api = useApi();
  const store = getProxySessions(api);
  const sessions = useStore(store.sessions);
  const [faultsOf, setFaultsOf] = useState<string | undefined>();
  // Mounted again after a reconnect: what main has now.
  useEffect(() => store.refresh(), [store]);
  if (sessions.length === 0) return null;
  const open = sessions.find((s) => s.id === faultsOf);
  return (
    <Stack gap={6} mt="md" data-testid="proxy-sessions">
      <Group gap={6} justify="space-between">
        <Tooltip label="Sessions of other MCP clients seen through `switchboard proxy` (from the recordings library)" multiline maw={300} openDelay={300}>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase">
            Proxied sessions
          </Text>
        </Tooltip>
        <Text size="xs" c="dimmed">
          {sessions.filter((s) => s.state === 'live').length} live
        </Text>
      </Group>
      {sessions.map((session) => (
        <SessionRow key={session.id} session={session} onFaults={() => setFaultsOf(session.id)} />
      ))}
      <FaultsPanel session={open} onClose={() => setFaultsOf(undefined)} />
    </Stack>
  );
}

function show(session: ProxySession, view: View) {
  navigation.selectServer(session.id);
  if (view === 'traffic') navigation.showTraffic({ kind: 'server', serverId: session.id });
  else navigation.show(view);
}

function SessionRow({ session, onFaults }: { session: ProxySession; onFaults(): void }) {
  const nav = useNavigation();
  const selected = nav.serverId === session.id;
  const client = clientLabel(session);
  const live = session.state === 'live';
  const info = session.info;
  return (
    <Stack
      gap={2}
      p={6}
      data-testid="proxy-session"
      data-proxy-id={session.id}
      data-state={session.state}
      data-client={client ?? ''}
      data-events={session.events}
      onClick={() => show(session, 'traffic')}
      style={{
        borderRadius: 6,
        cursor: 'pointer',
        border: `1px solid ${selected ? 'var(--mantine-primary-color-filled)' : 'var(--mantine-color-default-border)'}`,
      }}
    >
      <Group gap={8} wrap="nowrap">
        <Tooltip label={live ? `Live: proxy process ${info.pid} is running` : `Ended${session.endedAt ? ` at ${new Date(session.endedAt).toLocaleTimeString()}` : ''}: its events are kept (and in the library)`} withinPortal>
          <span className={`state-dot state-${live ? 'connected' : 'disconnected'}`} aria-label={live ? 'live' : 'ended'} data-testid="proxy-session-dot" />
        </Tooltip>
        <Text size="sm" fw={500} truncate style={{ flex: 1 }} title={info.name}>
          {info.name}
        </Text>
        <Tooltip label="Seen through switchboard proxy: another client's session, not one Switchboard started" multiline maw={260} withinPortal>
          <Badge size="xs" variant="light" color="teal" data-testid="proxy-badge">
            proxied
          </Badge>
        </Tooltip>
        {session.faults.length > 0 && (
          <Tooltip label={`${session.faults.length} fault${session.faults.length === 1 ? '' : 's'} in force`} withinPortal>
            <Badge size="xs" variant="filled" color="orange" data-testid="proxy-faults-badge">
              {session.faults.length} fault{session.faults.length === 1 ? '' : 's'}
            </Badge>
          </Tooltip>
        )}
        <RowMenu label={`Actions for ${info.name}`} testId="proxy-session-menu">
            <Menu.Item onClick={() => show(session, 'traffic')}>Traffic</Menu.Item>
            <Menu.Item onClick={() => show(session, 'timeline')}>Timeline</Menu.Item>
            <Menu.Item onClick={() => show(session, 'logs')}>Logs</Menu.Item>
            <Menu.Item onClick={() => show(session, 'charts')}>Charts</Menu.Item>
            <Menu.Divider />
            <Menu.Item onClick={onFaults} data-testid="proxy-faults-open" disabled={!live}>
              Faults…
            </Menu.Item>
        </RowMenu>
      </Group>
      <Text size="xs" c={client ? undefined : 'dimmed'} truncate data-testid="proxy-session-client">
        {client ? `Client: ${client}` : 'Client: not known yet (no initialize seen)'}
        {info.protocolVersion ? ` · ${info.protocolVersion}` : ''}
      </Text>
      <Text size="xs" c="dimmed" className="mono" truncate title={info.target}>
        {info.transport} · {info.transport === 'http' && info.listen ? `${info.listen} → ` : ''}
        {info.target}
      </Text>
      <Text size="xs" c="dimmed">
        {formatCount(session.events)} events{live ? '' : ' · ended'}
      </Text>
    </Stack>
  );
}
