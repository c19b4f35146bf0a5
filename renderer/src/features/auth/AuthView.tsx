/**
 * Auth: an OAuth debugger for one HTTP server at a time — its sign-in state, the decoded access
 * token, and the flow step by step from the trace, live.
 */
import { Button, Group, Select, Switch, Text } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import type { ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { visibleText } from '../../components/SafeText';
import { useNavigation } from '../../state/navigation';
import classes from './auth.module.css';
import { AuthStatusCard } from './AuthStatusCard';
import { AuthSteps } from './AuthSteps';
import { JwtCard } from './JwtCard';
import { useAuthStatus, useAuthSteps } from './use-auth';

/** The server last shown here, kept across visits to the view; and the last request handled. */
let remembered: string | undefined;
let handledNonce = 0;

export function AuthView({ servers }: { servers: ServerStatus[] }) {
  const nav = useNavigation();
  const http = useMemo(() => servers.filter((s) => s.config.target.type === 'http'), [servers]);
  const [picked, setPicked] = useState<string | undefined>(() => remembered);
  const pick = (id: string) => {
    remembered = id;
    setPicked(id);
  };
  // Selecting an HTTP server in the sidebar shows it here; so does "Show sign-in" (declared last: it wins).
  const fromSidebar = nav.serverId && http.some((s) => s.id === nav.serverId) ? nav.serverId : undefined;
  useEffect(() => {
    if (fromSidebar) pick(fromSidebar);
  }, [fromSidebar]);
  useEffect(() => {
    if (nav.auth && nav.auth.nonce > handledNonce) {
      handledNonce = nav.auth.nonce;
      pick(nav.auth.serverId);
    }
  }, [nav.auth]);
  const selectedId = (picked && http.some((s) => s.id === picked) ? picked : undefined) ?? http[0]?.id;
  const server = http.find((s) => s.id === selectedId);

  return (
    <div className={classes.view} data-testid="auth-view">
      <Group gap="xs" wrap="nowrap">
        <Select
          size="xs"
          w={280}
          placeholder={http.length ? 'Pick a server' : 'No HTTP servers'}
          data={http.map((s) => ({ value: s.id, label: visibleText(s.name, 120) }))}
          value={selectedId ?? null}
          onChange={(v) => v && pick(v)}
          allowDeselect={false}
          aria-label="Server"
          data-testid="auth-server"
        />
        {server && (
          <Text size="xs" c="dimmed" className="mono" truncate style={{ flex: 1 }}>
            {server.config.target.type === 'http' ? visibleText(server.config.target.url, 300) : ''}
          </Text>
        )}
        <SystemBrowserSetting />
      </Group>
      {!server ? (
        <Text size="sm" c="dimmed" data-testid="auth-empty">
          {servers.length
            ? 'OAuth applies to servers reached by URL (HTTP). None of the configured servers is one; stdio servers get their credentials from their environment.'
            : 'No servers yet. Add an HTTP server to see how it signs in.'}
        </Text>
      ) : (
        <AuthPanel key={server.id} server={server} />
      )}
    </div>
  );
}

function AuthPanel({ server }: { server: ServerStatus }) {
  const { status, error, reload } = useAuthStatus(server.id);
  const steps = useAuthSteps(server.id);
  return (
    <>
      <div className={classes.cards}>
        <AuthStatusCard server={server} status={status} error={error} />
        <JwtCard status={status} />
      </div>
      {error && status && (
        <Group gap="xs">
          <Text size="xs" c="red">
            Could not refresh the sign-in state: {error}
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={reload}>
            Try again
          </Button>
        </Group>
      )}
      {status?.applies === false && steps.steps.length === 0 ? null : <AuthSteps state={steps} />}
    </>
  );
}

/** Desktop only: sign in through the system browser instead of a Switchboard login window. */
function SystemBrowserSetting() {
  const api = useApi();
  const [state, setState] = useState<{ desktop: boolean; on: boolean } | undefined>();
  useEffect(() => {
    let live = true;
    void Promise.all([api.appInfo(), api.getSettings()])
      .then(([info, settings]) => live && setState({ desktop: info.carrier === 'electron', on: settings.oauthSystemBrowser }))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api]);
  if (!state?.desktop) return null;
  return (
    <Switch
      size="xs"
      label="Sign in through the system browser"
      checked={state.on}
      onChange={(e) => {
        const on = e.currentTarget.checked;
        void api.updateSettings({ oauthSystemBrowser: on }).then((settings) => setState({ desktop: true, on: settings.oauthSystemBrowser }));
      }}
      data-testid="auth-system-browser"
    />
  );
}
