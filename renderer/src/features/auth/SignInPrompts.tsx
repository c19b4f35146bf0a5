/**
 * Browser mode's sign-in prompt: a sign-in waits for the person to open the authorization
 * server's page. The popup is opened from the click (a user gesture, so no popup blocker),
 * only for http(s) URLs, with the authorization server's origin shown before anything opens.
 * The prompt closes (with its popup) when the core says the flow ended.
 */
import { Alert, Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import type { ServerStatus, SignInPrompt } from '../../../../contract';
import { useApi } from '../../api/context';
import { SafeText, visibleText } from '../../components/SafeText';
import { checkSignInUrl, getSignInStore, useSignIns, type SignInOutcome } from './sign-in-store';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Mounted once in the App: the prompt, and the notifications when a flow ends. */
export function SignInPrompts({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const store = getSignInStore(api);
  const { prompts, opened } = useSignIns(api);
  const prompt = prompts[0];

  useEffect(
    () =>
      store.onEnded((ended) => {
        const name = visibleText(servers.find((s) => s.id === ended.serverId)?.name ?? prompts.find((p) => p.flowId === ended.flowId)?.serverName ?? ended.serverId, 80);
        if (ended.outcome === 'completed') notifications.show({ color: 'green', title: `Signed in to ${name}`, message: 'The sign-in finished; connecting.' });
        else if (ended.outcome === 'failed') notifications.show({ color: 'red', title: `Sign-in to ${name} failed`, message: visibleText(ended.message ?? 'The authorization server refused.', 500) });
        else notifications.show({ color: 'gray', title: `Sign-in to ${name} cancelled`, message: visibleText(ended.message ?? 'The sign-in was cancelled.', 500) });
      }),
    [store, servers, prompts],
  );

  return (
    <Modal
      opened={prompt !== undefined}
      onClose={() => undefined}
      withCloseButton={false}
      closeOnClickOutside={false}
      closeOnEscape={false}
      title={prompt ? <SafeText inline text={`Sign in to ${prompt.serverName}`} clip={120} /> : undefined}
      size="lg"
      attributes={{ content: { 'data-testid': 'signin-prompt' } as Record<string, string> }}
    >
      {prompt && <PromptBody key={prompt.flowId} prompt={prompt} opened={opened.has(prompt.flowId)} more={prompts.length - 1} />}
    </Modal>
  );
}

function PromptBody({ prompt, opened, more }: { prompt: SignInPrompt; opened: boolean; more: number }) {
  const api = useApi();
  const store = getSignInStore(api);
  const verdict = checkSignInUrl(prompt.url);
  const [problem, setProblem] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const scopes = (prompt.scope ?? '').split(/\s+/).filter(Boolean);

  const cancel = async () => {
    setCancelling(true);
    try {
      await store.cancel(prompt.flowId);
    } catch (error) {
      notifications.show({ color: 'red', title: 'Could not cancel the sign-in', message: errorText(error) });
    } finally {
      setCancelling(false);
    }
  };

  return (
    <Stack gap="sm" data-testid="signin-prompt-body" data-flow-id={prompt.flowId} data-server-id={prompt.serverId}>
      <Text size="sm">
        <SafeText inline text={prompt.serverName} clip={120} /> asks you to sign in. The sign-in page belongs to this authorization server:
      </Text>
      <Group gap="xs" wrap="nowrap">
        <Badge size="lg" variant="light" color="yellow" tt="none" style={{ maxWidth: '100%' }} data-testid="signin-origin">
          {visibleText(prompt.origin, 200)}
        </Badge>
      </Group>
      <Text size="xs" c="dimmed">
        Sign in only if you expected this server to use this authorization server.
      </Text>
      <div>
        <Text size="xs" fw={600} mb={4}>
          Requested scopes
        </Text>
        {scopes.length ? (
          <Group gap={4} data-testid="signin-scopes">
            {scopes.slice(0, 50).map((s, i) => (
              <Badge key={`${s}:${i}`} size="sm" variant="outline" tt="none">
                {visibleText(s, 100)}
              </Badge>
            ))}
          </Group>
        ) : (
          <Text size="xs" c="dimmed" data-testid="signin-scopes">
            None named: the authorization server decides.
          </Text>
        )}
      </div>
      {!verdict.ok && (
        <Alert color="red" title="Switchboard will not open this sign-in page" data-testid="signin-refused">
          {verdict.reason} Cancel the sign-in.
        </Alert>
      )}
      {problem && (
        <Alert color="red" data-testid="signin-open-error">
          {problem}
        </Alert>
      )}
      {opened && (
        <Text size="sm" c="dimmed" data-testid="signin-waiting">
          Waiting for you to finish signing in in the popup window… It closes by itself when you are done.
        </Text>
      )}
      {more > 0 && (
        <Text size="xs" c="dimmed">
          {more} more sign-in{more > 1 ? 's' : ''} waiting after this one.
        </Text>
      )}
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={() => void cancel()} loading={cancelling} data-testid="signin-cancel">
          Cancel
        </Button>
        {verdict.ok && (
          <Button onClick={() => setProblem(store.open(prompt) ?? null)} data-testid="signin-open" variant={opened ? 'light' : 'filled'}>
            {opened ? 'Open the sign-in window again' : 'Open sign-in window'}
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** Starts a sign-in and says how it went (unless a prompt's end already did). */
export function useSignInAction(): (server: { id: string; name: string }) => void {
  const api = useApi();
  const store = getSignInStore(api);
  return (server) => {
    void store.signIn(server.id).then((outcome: SignInOutcome) => {
      const name = visibleText(server.name, 80);
      if (outcome.kind === 'connected') notifications.show({ color: 'green', title: `Connected to ${name}`, message: 'Signed in (or the stored sign-in was still good).' });
      else if (outcome.kind === 'error') notifications.show({ color: 'red', title: `Sign-in to ${name} failed`, message: visibleText(outcome.message, 500) });
    });
  };
}
