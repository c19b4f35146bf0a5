/**
 * The request center: every question a server is waiting on (elicitation forms, links to open,
 * sampling), in one queue with a badge in the header. It opens by itself when a question
 * arrives; several can wait at once and each is answered on its own. Closing it leaves them
 * pending until their deadline. Also the way to a server's roots.
 */
import { Badge, Button, Group, Modal, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useRef, useState } from 'react';
import type { PendingRequest, RequestAnswer, ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { Store } from '../../state/store';
import { useSelect, useStore } from '../../state/useStore';
import { ElicitationForm } from './ElicitationForm';
import classes from './requests.module.css';
import { RootsEditor } from './RootsEditor';
import { SamplingDialog } from './SamplingDialog';
import { ServerText, str, visible } from './safe';
import { completionKey, getRequestStore, KIND_LABEL, OUTCOME_LABEL, outcomeText, useRequests, type RequestsSnapshot, type ResolvedRequest } from './store';
import { UrlDisplay, UrlElicitation } from './UrlElicitation';
import { taskTieText } from '../tasks';

// Open/closed is shared by the badge and the center (one center per window: module level).
const centerOpen = new Store(false);
const setCenterOpen = (open: boolean) => centerOpen.set(open);
const useCenterOpen = () => useStore(centerOpen);
// A request another view wants shown (a task's "Answer…"): the center selects it when it opens.
let wanted: string | null = null;
let wantedTick = 0;

/** Opens the request center at this pending request (e.g. the question a task waits on). */
export function showRequest(id: string): void {
  wanted = id;
  wantedTick++;
  setCenterOpen(true);
}

/** The header's badge: how many questions are waiting; opens the center. */
export function RequestBadge() {
  const api = useApi();
  const { pending } = useRequests(getRequestStore(api));
  const count = pending.length;
  return (
    <Tooltip label={count ? `${count} server request${count > 1 ? 's' : ''} waiting for you` : 'Server requests (elicitation, sampling) and roots'}>
      <Button
        size="xs"
        variant={count ? 'filled' : 'default'}
        color={count ? 'orange' : undefined}
        onClick={() => setCenterOpen(true)}
        data-testid="requests-badge"
        data-count={count}
        rightSection={count ? <Badge size="xs" color="white" c="orange" variant="filled" circle>{count}</Badge> : undefined}
      >
        Requests
      </Button>
    </Tooltip>
  );
}

export function RequestCenter({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const store = getRequestStore(api);
  const snapshot = useRequests(store);
  const opened = useCenterOpen();
  const [selected, setSelected] = useState<string | null>(null);
  const [rootsOpen, setRootsOpen] = useState(false);
  const seen = useRef(new Set<string>());

  // A new question opens the center; one already being answered stays selected.
  useEffect(() => {
    const fresh = snapshot.pending.filter((r) => !seen.current.has(r.id));
    for (const r of fresh) seen.current.add(r.id);
    if (fresh.length === 0) return;
    const current = selected && snapshot.pending.some((r) => r.id === selected);
    if (!centerOpen.get() || !current) setSelected(fresh[0]!.id);
    if (!centerOpen.get()) setCenterOpen(true);
  }, [snapshot.pending, selected]);

  // The server said a link flow is done: say so even when the center is closed.
  useEffect(
    () =>
      store.onCompletion(({ serverId, elicitationId }) => {
        const server = servers.find((s) => s.id === serverId);
        notifications.show({ color: 'green', title: 'Link flow complete', message: `${visible(server?.name ?? serverId, 80)} confirmed the URL elicitation ${visible(elicitationId, 60)}.` });
      }),
    [store, servers],
  );

  // Asked for from elsewhere (showRequest): select it.
  const tick = useSelect(centerOpen, () => wantedTick);
  useEffect(() => {
    if (wanted) {
      setSelected(wanted);
      wanted = null;
    }
  }, [tick]);

  const current = snapshot.pending.find((r) => r.id === selected) ?? null;
  const resolved = current ? null : (snapshot.recent.find((r) => r.request.id === selected) ?? null);

  const answer = async (request: PendingRequest, reply: RequestAnswer): Promise<string | null> => {
    try {
      const { answered } = await api.answerRequest({ id: request.id, answer: reply });
      if (!answered) return 'This request is no longer pending: it timed out, the server cancelled it, or its connection closed.';
      store.answeredLocally(request.id, reply.action);
      const next = store.get().pending.find((r) => r.id !== request.id);
      // Answered, whatever the kind: on to the next question, or closed (a link flow's completion arrives as a notification, and stays under Recent).
      if (next) setSelected(next.id);
      else setCenterOpen(false);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  };

  const count = snapshot.pending.length;
  return (
    <>
      <Modal
        opened={opened}
        onClose={() => setCenterOpen(false)}
        size={1100}
        closeOnClickOutside={false}
        title={
          <Group gap="xs">
            <Text fw={600}>Server requests</Text>
            <Badge variant="light" color={count ? 'orange' : 'gray'} data-testid="requests-pending-count">
              {count} pending
            </Badge>
            {count > 0 && (
              <Text size="xs" c="dimmed">
                Closing keeps them waiting until their deadline.
              </Text>
            )}
          </Group>
        }
        attributes={{ content: { 'data-testid': 'request-center' } as Record<string, string> }}
      >
        <div className={classes.layout}>
          <Queue snapshot={snapshot} selected={selected} onSelect={setSelected} onRoots={() => setRootsOpen(true)} />
          <div className={classes.detail} data-testid="request-detail">
            {current ? (
              <Stack gap="sm" key={current.id} data-testid="request-open" data-request-id={current.id} data-request-kind={current.kind}>
                <RequestHeader request={current} />
                {current.kind === 'elicitation-form' && <ElicitationForm request={current} onAnswer={(a) => answer(current, a)} />}
                {current.kind === 'elicitation-url' && <UrlElicitation request={current} onAnswer={(a) => answer(current, a)} />}
                {current.kind === 'sampling' && <SamplingDialog request={current} onAnswer={(a) => answer(current, a)} />}
              </Stack>
            ) : resolved ? (
              <ResolvedView item={resolved} completed={snapshot.completed} />
            ) : (
              <Text c="dimmed" size="sm" data-testid="requests-empty">
                Nothing is waiting. When a server asks for input (a form, a link to open, a model reply), it shows up here.
              </Text>
            )}
          </div>
        </div>
      </Modal>
      <RootsEditor opened={rootsOpen} onClose={() => setRootsOpen(false)} servers={servers} serverId={current?.serverId ?? resolved?.request.serverId} />
    </>
  );
}

function Queue({ snapshot, selected, onSelect, onRoots }: { snapshot: RequestsSnapshot; selected: string | null; onSelect(id: string): void; onRoots(): void }) {
  return (
    <div className={classes.queue}>
      <Text size="xs" fw={600} c="dimmed" tt="uppercase">
        Waiting
      </Text>
      <div data-testid="request-queue">
        {snapshot.pending.length === 0 && (
          <Text size="xs" c="dimmed">
            none
          </Text>
        )}
        {snapshot.pending.map((r) => (
          <UnstyledButton key={r.id} className={classes.queueItem} data-active={r.id === selected} onClick={() => onSelect(r.id)} data-testid="request-item" data-request-kind={r.kind} data-server-name={r.serverName}>
            <Group gap={6} wrap="nowrap" justify="space-between">
              <Badge size="xs" variant="light" color={r.kind === 'sampling' ? 'grape' : r.kind === 'elicitation-url' ? 'yellow' : 'blue'}>
                {KIND_LABEL[r.kind]}
              </Badge>
              <Deadline deadline={r.deadline} compact />
            </Group>
            <Text size="sm" fw={500} truncate>
              {visible(r.serverName, 80)}
            </Text>
            <Text size="xs" c="dimmed" truncate className="mono">
              {r.task?.side === 'server' ? `task ${visible(r.task.taskId.slice(0, 8), 8)}${r.task.tool ? ` · ${visible(r.task.tool, 80)}` : ''}` : r.call ? visible(r.call.tool, 80) : 'no call in flight'}
            </Text>
          </UnstyledButton>
        ))}
      </div>
      {snapshot.recent.length > 0 && (
        <>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mt="sm">
            Recent
          </Text>
          <div data-testid="request-recent">
            {snapshot.recent.slice(0, 8).map((item) => (
              <UnstyledButton key={item.request.id} className={classes.queueItem} data-active={item.request.id === selected} onClick={() => onSelect(item.request.id)} data-testid="recent-item">
                <Text size="xs" truncate>
                  <b>{visible(item.request.serverName, 40)}</b> · {KIND_LABEL[item.request.kind]}
                </Text>
                <Text size="xs" c="dimmed" truncate data-testid="recent-outcome" title={outcomeText(item)}>
                  {outcomeText(item)} · {new Date(item.at).toLocaleTimeString()}
                </Text>
              </UnstyledButton>
            ))}
          </div>
        </>
      )}
      <div style={{ flex: 1 }} />
      <Button variant="default" size="xs" onClick={onRoots} data-testid="roots-open">
        Roots…
      </Button>
    </div>
  );
}

function RequestHeader({ request }: { request: PendingRequest }) {
  return (
    <Stack gap={2} data-testid="request-header">
      <Group justify="space-between" wrap="nowrap">
        <Group gap={6} wrap="nowrap">
          <Badge variant="light" color={request.kind === 'sampling' ? 'grape' : request.kind === 'elicitation-url' ? 'yellow' : 'blue'}>
            {KIND_LABEL[request.kind]}
          </Badge>
          <Text fw={600} data-testid="request-server">
            <ServerText inline text={request.serverName} clip={120} />
          </Text>
          <Badge variant="outline" size="xs" color="gray">
            {request.era === 'modern' ? '2026-07-28 · input_required' : '2025-11-25 · server request'}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed">
          received {new Date(request.receivedAt).toLocaleTimeString()} · <Deadline deadline={request.deadline} />
        </Text>
      </Group>
      {request.task?.side !== 'server' && (
        <Text size="xs" c="dimmed" data-testid="request-call">
          {request.call ? (
            <>
              asked while calling <span className="mono">{visible(request.call.tool, 120)}</span>
            </>
          ) : (
            'not tied to one tool call (several were running, or none)'
          )}
        </Text>
      )}
      {request.task && (
        <Text size="xs" c={request.task.side === 'server' ? undefined : 'dimmed'} fw={request.task.side === 'server' ? 500 : undefined} data-testid="request-task" data-task-id={request.task.taskId} data-task-side={request.task.side} title={request.task.taskId}>
          {visible(taskTieText(request.task), 240)}
        </Text>
      )}
    </Stack>
  );
}

function ResolvedView({ item, completed }: { item: ResolvedRequest; completed: ReadonlyMap<string, number> }) {
  const { request } = item;
  const elicitationId = typeof request.params.elicitationId === 'string' ? request.params.elicitationId : undefined;
  const done = elicitationId ? completed.get(completionKey(request.serverId, elicitationId)) : undefined;
  const isUrl = request.kind === 'elicitation-url';
  return (
    <Stack gap="sm" data-testid="request-resolved" data-outcome={item.outcome} data-action={item.action}>
      <RequestHeaderStatic request={request} />
      <Text size="sm">
        {item.outcome === 'answered' ? `You answered: ${item.action}.` : `Not answered: ${OUTCOME_LABEL[item.outcome]}.`}
      </Text>
      {str(request.params.message) && (
        <div className={classes.message}>
          <ServerText text={str(request.params.message)} clip={1_000} />
        </div>
      )}
      {isUrl && <UrlDisplay raw={str(request.params.url)} />}
      {isUrl && item.action === 'accept' && (
        <Group gap={6}>
          {done ? (
            <Badge color="green" variant="light" data-testid="url-status">
              completed · {new Date(done).toLocaleTimeString()}
            </Badge>
          ) : elicitationId ? (
            <Badge color="gray" variant="light" data-testid="url-status">
              opened — waiting for the server to confirm
            </Badge>
          ) : (
            <Badge color="gray" variant="light" data-testid="url-status">
              opened (the 2026 era sends no completion notice)
            </Badge>
          )}
        </Group>
      )}
    </Stack>
  );
}

function RequestHeaderStatic({ request }: { request: PendingRequest }) {
  return (
    <Group gap={6}>
      <Badge variant="light" color="gray">
        {KIND_LABEL[request.kind]}
      </Badge>
      <Text fw={600}>
        <ServerText inline text={request.serverName} clip={120} />
      </Text>
      {request.call && (
        <Text size="xs" c="dimmed" className="mono">
          {visible(request.call.tool, 120)}
        </Text>
      )}
      {request.task && (
        <Text size="xs" c="dimmed">
          {visible(taskTieText(request.task), 240)}
        </Text>
      )}
    </Group>
  );
}

/** Time left to answer. */
function Deadline({ deadline, compact = false }: { deadline: number; compact?: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.round((deadline - now) / 1000));
  const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  return (
    <Text span size="xs" c={left < 60 ? 'red' : 'dimmed'} data-testid="request-deadline">
      {compact ? text : `${text} left to answer`}
    </Text>
  );
}
