/**
 * URL-mode elicitation: the server wants the person to open a link (to sign in, pay, consent…).
 * The whole URL is shown with its host picked out; a link that is not https: is refused with the
 * reason and no way to open it. Opening is an explicit button; then the answer is accept.
 */
import { Alert, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../api/context';
import type { AnswerProps } from './ElicitationForm';
import classes from './requests.module.css';
import { ServerText, str } from './safe';
import { inspectUrl, openConsented, type UrlParts } from './url-elicitation';

/** The URL, with the part that says where it goes made obvious. */
export function UrlDisplay({ raw, testId = 'url-display' }: { raw: string; testId?: string }) {
  const verdict = inspectUrl(raw);
  const parts: UrlParts | undefined = verdict.parts;
  return (
    <Stack gap={4}>
      <div className={classes.url} data-testid={testId}>
        {parts ? (
          <>
            <span className={classes.urlDim}>{parts.scheme}</span>
            {parts.credentials && <span className={classes.invisible}>{parts.credentials}</span>}
            {parts.host && (
              <span className={classes.urlHost} data-testid="url-host">
                {parts.host}
              </span>
            )}
            <span className={classes.urlDim}>{parts.port}</span>
            <ServerText inline text={parts.rest} clip={1_000} className={classes.urlDim} />
          </>
        ) : (
          <ServerText inline text={raw} clip={1_000} />
        )}
      </div>
      {parts && parts.href !== raw && (
        <Text size="xs" c="dimmed">
          As the server sent it: <ServerText inline text={raw} clip={500} />
        </Text>
      )}
    </Stack>
  );
}

export function UrlElicitation({ request, onAnswer }: AnswerProps) {
  const api = useApi();
  const raw = str(request.params.url);
  const verdict = inspectUrl(raw);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const answer = async (action: 'accept' | 'decline' | 'cancel') => {
    setBusy(action);
    setError(null);
    try {
      if (action === 'accept') await openConsented(api, raw);
      const problem = await onAnswer({ kind: 'elicitation', action });
      if (problem) setError(problem);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Stack gap="sm" data-testid="url-elicitation" data-url-ok={verdict.ok}>
      <div className={classes.message} data-testid="request-message">
        <ServerText text={str(request.params.message) || '(the server sent no message)'} />
      </div>
      <Text size="sm">
        <b>{request.serverName}</b> asks you to open this link in your browser:
      </Text>
      <UrlDisplay raw={raw} />
      {verdict.ok ? (
        <Group gap={6}>
          <Text size="xs" c="dimmed">
            It goes to
          </Text>
          <Badge variant="light" color="yellow" tt="none" data-testid="url-domain">
            {verdict.parts.host}
          </Badge>
          <Text size="xs" c="dimmed">
            — open it only if you expected this server to send you there.
          </Text>
        </Group>
      ) : (
        <Alert color="red" title="Switchboard will not open this link" data-testid="url-refused">
          {verdict.reason} Decline the request, or cancel it.
        </Alert>
      )}
      {typeof request.params.elicitationId === 'string' && (
        <Text size="xs" c="dimmed">
          elicitationId <span className="mono">{request.params.elicitationId.slice(0, 200)}</span> — the server may confirm when the flow is done.
        </Text>
      )}
      {error && (
        <Alert color="red" data-testid="answer-error" className="pre-wrap">
          {error}
        </Alert>
      )}
      <Group justify="flex-end" gap="xs">
        <Button variant="subtle" color="gray" onClick={() => void answer('cancel')} loading={busy === 'cancel'} disabled={busy !== null} data-testid="answer-cancel">
          Cancel
        </Button>
        <Button variant="default" onClick={() => void answer('decline')} loading={busy === 'decline'} disabled={busy !== null} data-testid="answer-decline">
          Decline
        </Button>
        {verdict.ok && (
          <Button onClick={() => void answer('accept')} loading={busy === 'accept'} disabled={busy !== null} data-testid="url-open">
            Open {verdict.parts.host.length > 40 ? 'link' : verdict.parts.host} in browser
          </Button>
        )}
      </Group>
    </Stack>
  );
}
