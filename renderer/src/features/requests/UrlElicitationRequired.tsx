/**
 * For a tool call that failed with `-32042` (URL elicitation required, 2025-11-25 era): the
 * server wants the person to open a link before the call can succeed. Give it the call's error
 * message and detail; it renders nothing when the detail is not such an error, so a view can write
 *
 *   {error && (isUrlElicitationRequired(detail) ? <UrlElicitationRequired message={error} detail={detail} serverId={id} onRetry={call} /> : <Alert>{error}</Alert>)}
 *
 * Each link: the server's reason, the URL with its host picked out, an explicit Open button
 * (https: only), then "waiting for the server" until `notifications/elicitation/complete`
 * names its elicitationId, then "completed"; "Call again" re-runs the call.
 */
import { Alert, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ServerText } from './safe';
import { completionKey, getRequestStore, useRequests } from './store';
import { UrlDisplay } from './UrlElicitation';
import type { ErrorDetail } from '../../../../contract';
import { inspectUrl, openConsented, parseUrlElicitationRequired, type RequiredElicitation } from './url-elicitation';

export function isUrlElicitationRequired(detail: ErrorDetail | undefined): boolean {
  return parseUrlElicitationRequired(detail) !== null;
}

export function UrlElicitationRequired({ message, detail, serverId, onRetry }: { message: string; detail: ErrorDetail | undefined; serverId?: string; onRetry?: () => void }) {
  const items = parseUrlElicitationRequired(detail);
  if (!items) return null;
  const summary = message.split('\n')[0] ?? '';
  return (
    <Alert color="blue" variant="light" title="The server needs you to open a link first" data-testid="url-elicitation-required">
      <Stack gap="sm">
        <Text size="sm">
          <ServerText inline text={summary} />
        </Text>
        {items.map((item, i) => (
          <RequiredLink key={`${item.url}-${i}`} item={item} serverId={serverId} />
        ))}
        {onRetry && (
          <Group>
            <Button size="xs" variant="default" onClick={onRetry} data-testid="url-elicitation-retry">
              Call again
            </Button>
          </Group>
        )}
      </Stack>
    </Alert>
  );
}

function RequiredLink({ item, serverId }: { item: RequiredElicitation; serverId?: string }) {
  const api = useApi();
  const { completed } = useRequests(getRequestStore(api));
  const [opened, setOpened] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const verdict = inspectUrl(item.url);
  const done = serverId && item.elicitationId ? completed.has(completionKey(serverId, item.elicitationId)) : false;
  const open = async () => {
    setError(null);
    try {
      await openConsented(api, item.url);
      setOpened(true);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <Stack gap={4} data-testid="url-elicitation-link">
      {item.message && <ServerText text={item.message} clip={1_000} />}
      <UrlDisplay raw={item.url} />
      {!verdict.ok && (
        <Text size="sm" c="red" data-testid="url-refused">
          {verdict.reason}
        </Text>
      )}
      <Group gap="xs">
        {verdict.ok && (
          <Button size="xs" onClick={() => void open()} data-testid="url-elicitation-open">
            Open {verdict.parts.host.length > 40 ? 'link' : verdict.parts.host}
          </Button>
        )}
        {done ? (
          <Badge color="green" variant="light" data-testid="url-status">
            completed
          </Badge>
        ) : opened ? (
          <Badge color="gray" variant="light" data-testid="url-status">
            opened — waiting for the server
          </Badge>
        ) : null}
      </Group>
      {error && (
        <Text size="sm" c="red">
          {error}
        </Text>
      )}
    </Stack>
  );
}
