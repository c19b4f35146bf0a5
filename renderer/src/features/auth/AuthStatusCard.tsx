/**
 * A server's sign-in at a glance: signed in or not, which client, which authorization server,
 * the token's type and expiry (counting down), scopes asked for vs granted, how tokens are kept
 * at rest, and the last failure with its most likely cause. Sign in, sign out, cancel.
 */
import { Alert, Badge, Button, Group, Popover, Stack, Switch, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import type { AuthStatus, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { SafeText, visibleText } from '../../components/SafeText';
import classes from './auth.module.css';
import { Kv, ParamTable, Section } from './parts';
import { useSignIns } from './sign-in-store';
import { useSignInAction } from './SignInPrompts';
import { AUTHORIZE_PARAMS, compareScopes, decodeAuthorizationUrl, relativeTime } from './steps';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

const SOURCE_LABEL: Record<NonNullable<AuthStatus['clientSource']>, string> = {
  configured: 'configured in the server settings',
  'metadata-document': 'Client ID Metadata Document',
  dynamic: 'dynamic registration',
};

/** Why OAuth does not apply to a server, from its configuration. */
export function whyNoOAuth(server: ServerStatus): string {
  const target = server.config.target;
  if (target.type !== 'http') return 'This server runs as a local command (stdio): OAuth is for servers reached by URL.';
  if (target.oauth?.disabled) return 'OAuth is turned off in this server\'s settings (Edit… → OAuth → "Use OAuth when the server asks").';
  if (Object.keys(target.headers).some((h) => h.toLowerCase() === 'authorization')) return 'This server has an Authorization header of its own (Edit… → Headers): Switchboard sends that instead of signing in.';
  return 'Switchboard does not sign in to this server with OAuth.';
}

export function AuthStatusCard({ server, status, error }: { server: ServerStatus; status?: AuthStatus; error?: string }) {
  const api = useApi();
  const signIn = useSignInAction();
  const { busy } = useSignIns(api);
  const signingIn = busy.has(server.id);
  const [cancelling, setCancelling] = useState(false);

  const cancel = async () => {
    setCancelling(true);
    try {
      const { cancelled } = await api.cancelSignIn({ serverId: server.id });
      if (!cancelled) notifications.show({ color: 'gray', title: 'Nothing to cancel', message: 'No sign-in of this server was waiting.' });
    } catch (e) {
      notifications.show({ color: 'red', title: 'Could not cancel the sign-in', message: errorText(e) });
    } finally {
      setCancelling(false);
    }
  };

  if (!status) {
    return (
      <div className={classes.card} data-testid="auth-status" data-loaded="false">
        <Text size="sm" c={error ? 'red' : 'dimmed'}>
          {error ? `Could not read the sign-in state: ${error}` : 'Reading the sign-in state…'}
        </Text>
      </div>
    );
  }

  const state = status.inFlow ? 'signing-in' : status.signedIn ? 'signed-in' : 'signed-out';
  return (
    <div className={classes.card} data-testid="auth-status" data-loaded="true" data-applies={status.applies} data-signed-in={status.signedIn} data-in-flow={status.inFlow}>
      {/* Title and state on the left, actions on the right; when the card is narrow the actions wrap under the title, never shrink. */}
      <div className={classes.cardHeader}>
        <Group gap="xs" wrap="nowrap" className={classes.fixed}>
          <Text fw={600} size="sm">
            Sign-in
          </Text>
          {status.applies && (
            <Badge className={classes.fixed} color={state === 'signed-in' ? 'green' : state === 'signing-in' ? 'blue' : 'gray'} variant="light" data-testid="auth-state">
              {state === 'signed-in' ? 'signed in' : state === 'signing-in' ? 'signing in…' : 'not signed in'}
            </Badge>
          )}
        </Group>
        {status.applies && (
          <div className={classes.actions} data-testid="auth-actions">
            {status.inFlow && (
              <Button className={classes.fixed} size="compact-xs" variant="default" loading={cancelling} onClick={() => void cancel()} data-testid="auth-cancel-signin">
                Cancel sign-in
              </Button>
            )}
            <Button className={classes.fixed} size="compact-xs" loading={signingIn} disabled={server.config.disabled} onClick={() => signIn(server)} data-testid="auth-signin">
              Sign in
            </Button>
            <SignOutButton server={server} disabled={!status.signedIn && !status.clientId} />
          </div>
        )}
      </div>
      {status.applies && !status.signedIn && !status.inFlow && !signingIn && !status.lastFailure && (
        <Text size="xs" c="dimmed" mb={6} data-testid="auth-idle">
          Not signed in. Switchboard signs in when the server answers 401 (on connect, or with Sign in); a server that never asks needs no sign-in.
        </Text>
      )}

      {!status.applies ? (
        <Alert color="gray" p="xs" title="OAuth does not apply" data-testid="auth-not-applicable">
          {whyNoOAuth(server)}
        </Alert>
      ) : (
        <Stack gap={6}>
          {signingIn && !status.inFlow && (
            <Text size="xs" c="dimmed" data-testid="auth-busy">
              Connecting; a sign-in starts if the server asks for one.
            </Text>
          )}
          {status.inFlow && (
            <Text size="xs" c="blue" data-testid="auth-busy">
              A sign-in is waiting for you to finish it in the sign-in window.
            </Text>
          )}
          <Kv
            rows={[
              ['Identity', status.identity],
              [
                'Client ID',
                status.clientId ? (
                  <span data-testid="auth-client">
                    <SafeText inline text={status.clientId} clip={300} />
                    {status.clientSource && (
                      <Badge size="xs" ml={6} variant="outline" tt="none" data-testid="auth-client-source" data-source={status.clientSource}>
                        {SOURCE_LABEL[status.clientSource]}
                      </Badge>
                    )}
                  </span>
                ) : undefined,
              ],
              ['Authorization server', status.issuer],
              ['Token type', status.tokenType],
              ['Expires', status.expiresAt !== undefined ? <Expiry at={status.expiresAt} /> : status.signedIn ? 'not said (no expires_in)' : undefined],
              ['Refresh token', status.signedIn || status.hasRefreshToken ? <span data-testid="auth-refresh">{status.hasRefreshToken ? 'yes — refreshed before it expires' : 'no — a new sign-in when it expires'}</span> : undefined],
              ['Scopes', status.scopeRequested !== undefined || status.scopeGranted !== undefined ? <Scopes requested={status.scopeRequested} granted={status.scopeGranted} signedIn={status.signedIn} /> : undefined],
            ]}
            testId="auth-status-rows"
          />
          <StepByStep server={server} status={status} />
          {status.lastFailure && (
            <Alert color="red" p="xs" title={`Failed at the ${visibleText(status.lastFailure.step, 60)} step · ${new Date(status.lastFailure.at).toLocaleTimeString()}`} data-testid="auth-failure" data-step={status.lastFailure.step}>
              <SafeText text={status.lastFailure.message} />
              {status.lastFailure.hint && (
                <Text size="xs" mt={4}>
                  <b>Try:</b> <SafeText inline text={status.lastFailure.hint} />
                </Text>
              )}
            </Alert>
          )}
          {status.authorizationUrl && <LastAuthorization url={status.authorizationUrl} />}
        </Stack>
      )}
      <Storage storage={status.storage} />
    </div>
  );
}

function Storage({ storage }: { storage: AuthStatus['storage'] }) {
  if (!storage.encrypted) {
    return (
      <Alert color="yellow" p="xs" mt={8} title={`Tokens at rest: ${storage.backend}`} data-testid="auth-storage" data-encrypted="false">
        {storage.notice}
      </Alert>
    );
  }
  return (
    <Text size="xs" c="dimmed" mt={8} data-testid="auth-storage" data-encrypted="true">
      Tokens at rest: {storage.backend} — {storage.notice}
    </Text>
  );
}

/** A live countdown to the access token's expiry. */
function Expiry({ at }: { at: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = at - now;
  return (
    <Text span size="xs" c={left <= 0 ? 'red' : left < 60_000 ? 'orange' : undefined} data-testid="auth-expiry" data-expires-at={at} data-expired={left <= 0}>
      {left <= 0 ? `expired ${relativeTime(left)}` : relativeTime(left)} · {new Date(at).toLocaleString()}
    </Text>
  );
}

function Scopes({ requested, granted, signedIn }: { requested?: string; granted?: string; signedIn: boolean }) {
  // No `scope` in the token response means the grant is what was asked for (RFC 6749 §5.1).
  const sameAsAsked = granted === undefined && signedIn;
  const { both, missing, extra } = compareScopes(requested, sameAsAsked ? requested : granted);
  return (
    <Stack gap={4} data-testid="auth-scopes">
      <Group gap={4}>
        <Text size="xs" c="dimmed" w={70}>
          requested
        </Text>
        {requested ? null : (
          <Text size="xs" c="dimmed">
            none named
          </Text>
        )}
        {[...both, ...missing].map((s, i) => (
          <Badge key={`r:${s}:${i}`} size="xs" tt="none" variant="outline" color={missing.includes(s) && signedIn ? 'red' : 'gray'}>
            {visibleText(s, 80)}
          </Badge>
        ))}
      </Group>
      <Group gap={4}>
        <Text size="xs" c="dimmed" w={70}>
          granted
        </Text>
        {!signedIn && granted === undefined ? (
          <Text size="xs" c="dimmed">
            —
          </Text>
        ) : sameAsAsked ? (
          <Text size="xs" c="dimmed">
            not said: the same as requested (RFC 6749 §5.1)
          </Text>
        ) : null}
        {!sameAsAsked &&
          [...both, ...extra].map((s, i) => (
            <Badge key={`g:${s}:${i}`} size="xs" tt="none" variant="light" color={extra.includes(s) ? 'yellow' : 'green'}>
              {visibleText(s, 80)}
            </Badge>
          ))}
      </Group>
      {signedIn && missing.length > 0 && (
        <Text size="xs" c="red" data-testid="auth-scopes-missing" data-missing={missing.join(' ')}>
          Not granted: {visibleText(missing.join(' '), 300)}
        </Text>
      )}
      {extra.length > 0 && (
        <Text size="xs" c="yellow.8" data-testid="auth-scopes-extra" data-extra={extra.join(' ')}>
          Granted without being asked: {visibleText(extra.join(' '), 300)}
        </Text>
      )}
    </Stack>
  );
}

function LastAuthorization({ url }: { url: string }) {
  const [open, setOpen] = useState(false);
  const decoded = decodeAuthorizationUrl(url);
  return (
    <div>
      <Button size="compact-xs" variant="subtle" onClick={() => setOpen(!open)} data-testid="auth-last-authorization">
        {open ? 'Hide' : 'Show'} the last authorization request
      </Button>
      {open && (
        <Section title={decoded ? decoded.endpoint : 'Authorization URL'}>
          {decoded ? <ParamTable params={decoded.params} highlight={new Set(AUTHORIZE_PARAMS)} /> : <SafeText text={url} />}
        </Section>
      )}
    </div>
  );
}

function SignOutButton({ server, disabled }: { server: ServerStatus; disabled: boolean }) {
  const api = useApi();
  const [opened, setOpened] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const { revoked, errors } = await api.signOut({ id: server.id });
      const name = visibleText(server.name, 80);
      notifications.show({
        color: errors.length ? 'yellow' : 'green',
        title: `Signed out of ${name}`,
        message: `${revoked ? `${revoked} token${revoked === 1 ? '' : 's'} revoked; ` : ''}everything stored for this server was forgotten.${errors.length ? ` Revocation problems: ${visibleText(errors.join('; '), 400)}` : ''}`,
      });
      setOpened(false);
    } catch (e) {
      notifications.show({ color: 'red', title: 'Sign-out failed', message: errorText(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" withArrow withinPortal>
      <Popover.Target>
        <Button className={classes.fixed} size="compact-xs" variant="default" color="red" disabled={disabled} onClick={() => setOpened((o) => !o)} data-testid="auth-signout">
          Sign out
        </Button>
      </Popover.Target>
      <Popover.Dropdown maw={320}>
        <Text size="xs" mb={8}>
          Sign out of {visibleText(server.name, 80)}? The tokens are revoked where the authorization server supports it, everything stored for this server is forgotten, and it disconnects.
        </Text>
        <Group justify="flex-end" gap={6}>
          <Button size="compact-xs" variant="default" onClick={() => setOpened(false)} data-testid="auth-signout-keep">
            Keep signed in
          </Button>
          <Button size="compact-xs" color="red" loading={busy} onClick={() => void run()} data-testid="auth-signout-confirm">
            Sign out
          </Button>
        </Group>
      </Popover.Dropdown>
    </Popover>
  );
}

/**
 * "Run step by step": every OAuth request of this server (and the opening of the login) waits
 * for Continue, so each exchange can be read before the next one goes out.
 */
function StepByStep({ server, status }: { server: ServerStatus; status: AuthStatus }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const run = async (what: () => Promise<unknown>, failure: string) => {
    setBusy(true);
    try {
      await what();
    } catch (e) {
      notifications.show({ color: 'red', title: failure, message: errorText(e) });
    } finally {
      setBusy(false);
    }
  };
  const paused = status.paused;
  return (
    <Stack gap={4} data-testid="auth-step-mode" data-on={status.stepMode}>
      <Switch
        size="xs"
        label="Run step by step (pause before each OAuth request and before the sign-in opens)"
        checked={status.stepMode}
        disabled={busy}
        onChange={(e) => {
          const on = e.currentTarget.checked;
          void run(() => api.authStepMode({ id: server.id, on }), 'Could not change step-by-step mode');
        }}
        data-testid="auth-step-mode-switch"
      />
      {paused && (
        <Alert color="blue" p="xs" title={`Paused before: ${visibleText(paused.step, 40)}`} data-testid="auth-paused" data-step={paused.step}>
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all', flex: 1, minWidth: 0 }}>
              <SafeText inline text={`${paused.method} ${paused.url}`} clip={500} />
            </Text>
            <Button size="compact-xs" loading={busy} onClick={() => void run(() => api.authContinue({ id: server.id }), 'Could not continue')} data-testid="auth-continue">
              Continue
            </Button>
          </Group>
        </Alert>
      )}
    </Stack>
  );
}
