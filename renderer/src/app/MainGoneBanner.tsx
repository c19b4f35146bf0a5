/**
 * Says so when browser mode has lost main: reconnecting (with the attempt count, the time to the
 * next attempt and "Reconnect now"), or back with a new token (the page cannot follow: only the
 * URL main printed carries the new token). Gone once the link is up again.
 */
import { Alert, Button, Group, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { MAIN_GONE } from '../api/carrier';
import { useLink, useLinkState } from '../api/context';

export function MainGoneBanner() {
  const link = useLink();
  const state = useLinkState();
  const [now, setNow] = useState(Date.now());
  const waiting = state.status !== 'connected';
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [waiting]);
  if (!waiting) return null;
  const seconds = state.nextAttemptAt ? Math.max(0, Math.ceil((state.nextAttemptAt - now) / 1000)) : 0;
  const next = state.nextAttemptAt ? `next attempt in ${seconds} s` : 'trying now…';
  if (state.status === 'new-token') {
    return (
      <Alert color="orange" variant="filled" mb="sm" title="Switchboard restarted with a new token: open the URL it printed" data-testid="main-gone" data-status="new-token" data-attempts={state.attempts}>
        <Text size="sm">This page still holds the old token, so main refuses it. Open the URL that “npm run web” printed when it started again (it ends in ?token=…).</Text>
      </Alert>
    );
  }
  return (
    <Alert color="red" variant="filled" mb="sm" title="Main process gone — reconnecting…" data-testid="main-gone" data-status="lost" data-attempts={state.attempts}>
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Text size="sm">
          {MAIN_GONE}: requests in flight failed, and server states are unknown until it is back.{' '}
          <span data-testid="main-gone-attempts">
            {state.attempts} {state.attempts === 1 ? 'attempt' : 'attempts'}, {next}.
          </span>
        </Text>
        <Button size="xs" variant="white" color="red" onClick={() => link.reconnectNow()} data-testid="main-gone-reconnect">
          Reconnect now
        </Button>
      </Group>
    </Alert>
  );
}
