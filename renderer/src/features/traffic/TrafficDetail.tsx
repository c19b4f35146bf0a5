/**
 * The detail pane: the selected event, and when it belongs to an HTTP exchange, the whole
 * exchange — headers (as recorded: secrets already redacted), request and response bodies
 * (JSON tree or raw; the whole payload is fetched when the stored one is a preview), the SSE
 * events of a streamed response, and "Copy as cURL".
 */
import { LIMITS, safeStringify } from '../../../../contract/bounded-json';
import { ActionIcon, Badge, Button, Group, Popover, Tabs, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { TraceEvent } from '../../../../contract/trace';
import { useApi } from '../../api/context';
import { JsonTree } from '../../components/JsonTree';
import { PayloadView, isStructured } from '../../components/PayloadView';
import { copyText } from '../../components/download';
import { formatBytes, formatMs, formatTime } from '../../components/format';
import { appOf } from '../../components/app-tool';
import { appLabel, clip, curlCommand, directionLabel, isErrorEvent, methodStatus, urlPath } from './format';
import classes from './TrafficView.module.css';
import { bodyText, rawOf } from '../../components/raw-body';
import { traffic } from './traffic-store';
import { serverInfoPanel } from '../server-info';

interface Detail {
  event: TraceEvent;
  payload: unknown;
  /** Every event of the event's HTTP exchange (first 5,000), oldest first. */
  exchange?: TraceEvent[];
  exchangeMore: boolean;
  /** The exchange's end, when it came after the first 5,000 events. */
  end?: TraceEvent;
}

const RAW_CLIP = 200_000;

/** Event ids are often long (stream id + counter): the end is what differs. */
function shortId(id: string | undefined): string {
  if (!id) return '';
  return id.length > 16 ? `…${id.slice(-14)}` : id;
}
let lastTab = 'headers';

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Whole payloads fetched for previews, by source and seq (a few, most recent). */
const payloadCache = new Map<string, unknown>();

function usePayload(event: TraceEvent | undefined, source: string): { value: unknown; loading: boolean; error?: string } {
  const api = useApi();
  const key = event ? `${source}:${event.seq}` : '';
  const needs = event?.truncated === true && !payloadCache.has(key);
  const [state, setState] = useState<{ key: string; loading: boolean; error?: string }>({ key: '', loading: false });
  useEffect(() => {
    if (!event || !needs) return;
    let cancelled = false;
    setState({ key, loading: true });
    api.traceEvent({ seq: event.seq, source }).then(
      ({ payload }) => {
        payloadCache.set(key, payload);
        if (payloadCache.size > 20) payloadCache.delete(payloadCache.keys().next().value!);
        if (!cancelled) setState({ key, loading: false });
      },
      (error) => !cancelled && setState({ key, loading: false, error: errorMessage(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [api, event, key, needs, source]);
  if (!event) return { value: undefined, loading: false };
  if (payloadCache.has(key)) return { value: payloadCache.get(key), loading: false };
  return { value: event.body, loading: event.truncated === true && (state.key !== key || state.loading), error: state.key === key ? state.error : undefined };
}

const EXCHANGE_LIMIT = 5000;

function endOf(detail: Detail): TraceEvent | undefined {
  return detail.end ?? detail.exchange?.find((e) => e.kind === 'http-end');
}

/**
 * The selected event whole, with its exchange's events (the first 5,000) and, past those, its
 * end. While the exchange is still open (a live stream), new events are fetched incrementally
 * once a second; past the cap only its end is watched for.
 */
function useDetail(seq: number, source: string, live: boolean): { data?: Detail; error?: string } {
  const api = useApi();
  const [state, setState] = useState<{ seq: number; source: string; data?: Detail; error?: string }>({ seq: 0, source });
  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const endOfExchange = async (exchange: string) => (await api.traceQuery({ source, exchange, kinds: ['http-end'], limit: 1 })).events[0];
    const first = async (): Promise<Detail> => {
      const { event, payload } = await api.traceEvent({ seq, source });
      if (!event.exchange || event.channel === 'lifecycle') return { event, payload, exchangeMore: false };
      const page = await api.traceQuery({ source, exchange: event.exchange, order: 'asc', limit: EXCHANGE_LIMIT });
      if (page.nextCursor === undefined) return { event, payload, exchange: page.events, exchangeMore: false };
      // Past the first 5,000 the end is asked for at once: an exchange that ended is never shown
      // as open (a recording is read once; a live one is watched from here on).
      const end = await endOfExchange(event.exchange);
      return { event, payload, exchange: page.events, exchangeMore: true, ...(end ? { end } : {}) };
    };
    const refresh = async (detail: Detail): Promise<Detail> => {
      const exchange = detail.event.exchange!;
      const events = detail.exchange ?? [];
      if (!detail.exchangeMore && events.length < EXCHANGE_LIMIT) {
        const cursor = events.length ? events[events.length - 1]!.seq : 0;
        const page = await api.traceQuery({ source, exchange, order: 'asc', cursor, limit: EXCHANGE_LIMIT - events.length });
        if (page.events.length === 0) return detail;
        return { ...detail, exchange: events.concat(page.events), exchangeMore: page.nextCursor !== undefined };
      }
      const end = await endOfExchange(exchange);
      return end ? { ...detail, end } : detail;
    };
    const step = async (detail?: Detail) => {
      try {
        const next = detail ? await refresh(detail) : await first();
        if (cancelled) return;
        if (next !== detail) setState({ seq, source, data: next });
        // A stream still open: keep its events coming while it is on screen.
        if (live && next.exchange && !endOf(next)) timer = setTimeout(() => void step(next), 1000);
      } catch (error) {
        if (!cancelled) setState({ seq, source, error: errorMessage(error) });
      }
    };
    void step();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, seq, source, live]);
  return state.seq === seq && state.source === source ? state : {};
}

export function TrafficDetail({ seq, source, live, names }: { seq: number; source: string; live: boolean; names: ReadonlyMap<string, string> }) {
  const { data, error } = useDetail(seq, source, live);
  const [tab, setTab] = useState(lastTab);
  const close = (
    <Tooltip label="Close (Esc in the table)">
      <ActionIcon variant="subtle" size="sm" onClick={() => traffic.select(undefined)} aria-label="Close details" data-testid="traffic-detail-close">
        ✕
      </ActionIcon>
    </Tooltip>
  );
  if (!data) {
    return (
      <div className={classes.detail} data-testid="traffic-detail" data-loading={!error}>
        <div className={classes.detailHeader}>
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" c={error ? 'red' : 'dimmed'}>
              {error ? `Could not load event #${seq}: ${error}` : `Loading event #${seq}…`}
            </Text>
            {close}
          </Group>
        </div>
      </div>
    );
  }
  const { event, exchange } = data;
  const request = exchange?.find((e) => e.kind === 'http-request');
  const response = exchange?.find((e) => e.kind === 'http-response');
  const end = endOf(data);
  const stream = exchange?.filter((e) => e.kind === 'sse-event' || e.kind === 'sse-comment' || e.kind === 'sse-retry') ?? [];
  const isExchange = request !== undefined;
  const tabs = isExchange ? ['headers', 'payload', ...(stream.length || response?.http?.contentType?.startsWith('text/event-stream') ? ['events'] : []), 'event'] : ['payload', 'event'];
  const current = tabs.includes(tab) ? tab : tabs[0]!;
  const pick = (value: string | null) => {
    if (!value) return;
    lastTab = value;
    setTab(value);
  };
  const status = response?.http?.status;
  const negotiation = response?.negotiation ?? event.negotiation;
  const server = names.get(event.server) ?? event.server;
  const title = isExchange ? `${request.http?.method ?? ''} ${urlPath(request.http?.url ?? '')}` : `${event.kind} ${methodStatus(event).rpc}`;

  return (
    <div className={classes.detail} data-testid="traffic-detail" data-seq={event.seq} data-exchange={event.exchange}>
      <div className={classes.detailHeader}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <div className={classes.detailTitle} title={title} data-testid="traffic-detail-title">
            {clip(title, 300)}
          </div>
          {close}
        </Group>
        <Group gap={6} mt={4} wrap="wrap">
          {negotiation && (
            <Tooltip label={negotiation === 'failed' ? 'The version-negotiation probe met a real failure.' : 'Version negotiation (server/discover): a legacy server is expected to refuse it; the client then initializes in the 2025 era. Not an error.'} multiline maw={320}>
              <Badge size="sm" variant="light" color={negotiation === 'failed' ? 'red' : 'violet'} data-testid="traffic-detail-negotiation">
                negotiation{negotiation === 'answer' ? ' · expected answer' : negotiation === 'failed' ? ' · failed' : ' · probe'}
              </Badge>
            </Tooltip>
          )}
          {status !== undefined && (
            <Badge size="sm" variant="light" color={status === 405 || negotiation === 'answer' ? 'gray' : status >= 400 ? 'red' : status >= 300 ? 'yellow' : 'green'} data-testid="traffic-detail-status">
              {status} {response?.http?.statusText ?? ''}
            </Badge>
          )}
          <Badge size="sm" variant="outline" color="gray">
            {response?.channel ?? event.channel}
          </Badge>
          {event.channel === 'app' && (
            <Badge size="sm" variant="light" color="grape" style={{ textTransform: 'none', maxWidth: 240 }} data-testid="traffic-detail-app">
              app {appLabel(event)}
            </Badge>
          )}
          <Tooltip label="Server info: what it declared, what it did">
            <Badge size="sm" variant="outline" color="indigo" style={{ textTransform: 'none', cursor: 'pointer' }} onClick={() => serverInfoPanel.open(event.server)} data-testid="traffic-detail-server">
              {clip(server, 60)}
            </Badge>
          </Tooltip>
          {end?.http?.end && (
            <Badge size="sm" variant="light" color={end.http.end === 'error' ? 'red' : 'gray'}>
              {end.http.end}
            </Badge>
          )}
          {isExchange && !end && (
            <Badge size="sm" variant="light" color="blue">
              open
            </Badge>
          )}
          <Text size="xs" c="dimmed">
            #{event.seq} · {formatTime(event.ts)}
          </Text>
        </Group>
        <Group gap={6} mt={6}>
          {request && <CurlButton request={request} streamed={(response?.http?.contentType ?? '').startsWith('text/event-stream')} />}
          <Button
            size="compact-xs"
            variant="default"
            onClick={() =>
              copyText(safeStringify({ ...event, body: data.payload }, { space: 2 })).then(() => notifications.show({ title: 'Copied', message: `Event #${event.seq} as JSON is on the clipboard.` }))
            }
          >
            Copy event JSON
          </Button>
          <Button size="compact-xs" variant="default" onClick={() => traffic.reveal(event.seq)} data-testid="traffic-detail-reveal">
            Show in table
          </Button>
          {event.exchange && isExchange && (
            <Tooltip label="Filter the table to this exchange's events">
              <Button size="compact-xs" variant="default" onClick={() => traffic.setFilters({ exchange: event.exchange })} data-testid="traffic-detail-filter-exchange">
                Only this exchange{data.exchangeMore ? ' (5,000+ events)' : ''}
              </Button>
            </Tooltip>
          )}
        </Group>
      </div>
      <Tabs value={current} onChange={pick} keepMounted={false} style={{ display: 'flex', flexDirection: 'column', flex: 1, minHeight: 0 }}>
        <Tabs.List px={6}>
          {tabs.includes('headers') && (
            <Tabs.Tab value="headers" data-testid="traffic-tab-headers">
              Headers
            </Tabs.Tab>
          )}
          <Tabs.Tab value="payload" data-testid="traffic-tab-payload">
            {isExchange ? 'Payload' : 'Body'}
          </Tabs.Tab>
          {tabs.includes('events') && (
            <Tabs.Tab value="events" data-testid="traffic-tab-events">
              Events ({stream.length}
              {data.exchangeMore ? '+' : ''})
            </Tabs.Tab>
          )}
          <Tabs.Tab value="event" data-testid="traffic-tab-event">
            Event
          </Tabs.Tab>
        </Tabs.List>
        <div className={classes.detailBody}>
          {current === 'headers' && request && <HeadersTab request={request} response={response} end={end} names={names} />}
          {current === 'payload' && (isExchange ? <ExchangePayload selected={event} request={request} end={end} stream={stream} source={source} /> : <SingleBody event={event} source={source} />)}
          {current === 'events' && request && <SseEvents events={stream} start={request.ts} source={source} more={data.exchangeMore} selectedSeq={event.kind === 'sse-event' ? event.seq : undefined} />}
          {current === 'event' && <JsonTree value={{ ...event, body: data.payload }} expandDepth={2} testId="traffic-event-json" />}
        </div>
      </Tabs>
    </div>
  );
}

function CurlButton({ request, streamed }: { request: TraceEvent; streamed: boolean }) {
  const [shown, setShown] = useState<string | null>(null);
  const copy = async () => {
    const text = curlCommand(request, streamed);
    await copyText(text);
    setShown(text);
  };
  return (
    <Popover opened={shown !== null} onChange={(open) => !open && setShown(null)} width={520} position="bottom-start" withArrow shadow="md">
      <Popover.Target>
        <Tooltip
          multiline
          w={340}
          label="Copies the request as recorded. Secrets (authorization, cookies, API keys, tokens, secret env values) were replaced by [redacted] when the trace was recorded; Switchboard never kept them, so the command has placeholders — put your own credentials in before running it."
        >
          <Button size="compact-xs" variant="light" onClick={() => void copy()} data-testid="traffic-copy-curl">
            Copy as cURL
          </Button>
        </Tooltip>
      </Popover.Target>
      <Popover.Dropdown>
        <Text size="xs" fw={600} mb={4}>
          Copied to the clipboard
        </Text>
        <Text size="xs" c="dimmed" mb={6}>
          Secrets were redacted at recording time and cannot be restored; replace any [redacted] with your own values.
        </Text>
        <pre className={classes.raw} data-testid="traffic-curl-text">
          {shown}
        </pre>
        <Group justify="flex-end" mt={6}>
          <Button size="compact-xs" variant="default" onClick={() => setShown(null)}>
            Close
          </Button>
        </Group>
      </Popover.Dropdown>
    </Popover>
  );
}

function Kv({ rows, testId }: { rows: [string, string | number | undefined][]; testId?: string }) {
  return (
    <dl className={classes.kv} data-testid={testId}>
      {rows
        .filter(([, value]) => value !== undefined && value !== '')
        .map(([name, value]) => (
          <div key={name} style={{ display: 'contents' }}>
            <dt>{name}</dt>
            <dd className={String(value).includes('[redacted]') ? classes.redacted : undefined}>{clip(String(value), 4000)}</dd>
          </div>
        ))}
    </dl>
  );
}

function Section({ title, children, right, detail }: { title: string; children: ReactNode; right?: ReactNode; detail?: string }) {
  return (
    <div style={{ marginBottom: 14 }}>
      <Group justify="space-between" mb={4} gap="xs" wrap="nowrap">
        <Text size="xs" fw={700} c="dimmed" truncate>
          <span style={{ textTransform: 'uppercase' }}>{title}</span>
          {detail && <span className="mono" style={{ fontWeight: 400 }}> {clip(detail, 200)}</span>}
        </Text>
        {right}
      </Group>
      {children}
    </div>
  );
}

function HeadersTab({ request, response, end, names }: { request: TraceEvent; response?: TraceEvent; end?: TraceEvent; names: ReadonlyMap<string, string> }) {
  const http = request.http ?? {};
  const res = response?.http;
  const responseHeaders = Object.entries(res?.headers ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const requestHeaders = Object.entries(http.headers ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div data-testid="traffic-headers">
      <Section title="General">
        <Kv
          rows={[
            ['Request URL', http.url],
            ['Method', http.method],
            ['Status', res?.status !== undefined ? `${res.status} ${res.statusText ?? ''}`.trim() : end ? 'no response' : 'pending'],
            ['Channel', response?.channel ?? request.channel],
            ['Server', names.get(request.server) ?? request.server],
            ['Session', response?.session ?? request.session],
            ['Exchange', request.exchange],
            ['Started', `${new Date(request.ts).toISOString()} (${formatTime(request.ts)} local)`],
            ['Time to headers', formatMs(res?.ttfbMs)],
            ['Duration', formatMs(end?.durationMs)],
            ['Ended', end?.http?.end ? `${end.http.end}${end.text ? ` — ${end.text}` : ''}` : 'still open'],
            ['Request size', formatBytes(request.bytes)],
            ['Response size', formatBytes(end?.bytes)],
          ]}
        />
      </Section>
      <Section title={`Response headers (${responseHeaders.length})`}>
        {response ? <Kv rows={responseHeaders} testId="traffic-response-headers" /> : <Text size="xs" c="dimmed">No response.</Text>}
      </Section>
      <Section title={`Request headers (${requestHeaders.length})`}>
        <Kv rows={requestHeaders} testId="traffic-request-headers" />
      </Section>
      <Text size="xs" c="dimmed">
        Secret headers (authorization, cookies, API keys, tokens) were redacted when recorded.
      </Text>
    </div>
  );
}

function BodyView({ event, source, testId }: { event: TraceEvent; source: string; testId?: string }) {
  const { value, loading, error } = usePayload(event, source);
  if (value === undefined && !event.text) {
    return (
      <Text size="xs" c="dimmed">
        {loading ? 'Loading the payload…' : error ? `Could not load the payload: ${error}` : 'No body.'}
      </Text>
    );
  }
  // The bytes as received when main kept them (a body cut at the carried depth), else the body.
  const kept = rawOf(event);
  const raw = kept ?? (value === undefined ? (event.text ?? '') : bodyText(value));
  return (
    <div data-testid={testId} data-truncated={event.truncated || undefined}>
      <PayloadView
        value={value}
        text={raw}
        expandDepth={raw.length < 20_000 ? 8 : 3}
        treeTestId={testId ? `${testId}-tree` : undefined}
        rawTestId={testId ? `${testId}-raw` : undefined}
        rawClassName={classes.raw}
        limit={RAW_CLIP}
        filename={`event-${event.seq}.${isStructured(value) ? 'json' : 'txt'}`}
        toolbar={
          <>
            {event.bytes !== undefined && (
              <Text size="xs" c="dimmed">
                {formatBytes(event.bytes)}
              </Text>
            )}
            {kept !== undefined && (
              <Text size="xs" c="orange" data-testid="traffic-body-cut">
                nested deeper than {LIMITS.carriedDepth} levels: the tree shows it cut, Raw shows it as received
              </Text>
            )}
            {event.truncated && (
              <Text size="xs" c={error ? 'red' : 'dimmed'}>
                {loading ? 'large payload: loading the whole of it…' : error ? `showing a preview (${error})` : 'large payload, loaded whole'}
              </Text>
            )}
          </>
        }
      />
    </div>
  );
}

/** An MCP App bridge message: which app, and why the host refused it (when it did). */
function appRows(event: TraceEvent): [string, string | undefined][] {
  const app = appOf(event);
  if (!app) return [];
  return [
    ['App', app.tool ?? app.uri ?? 'unknown'],
    ['Resource', app.uri],
    ['Instance', app.instanceId],
    ['Refused', event.kind === 'error' ? (event.text ?? 'yes') : undefined],
  ];
}

function SingleBody({ event, source }: { event: TraceEvent; source: string }) {
  const meta = event.meta ? Object.entries(event.meta).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : safeStringify(v)]) : [];
  return (
    <div>
      <Section title="Event">
        <Kv
          rows={[
            ['Kind', event.kind],
            ['Direction', directionLabel(event)],
            ['Channel', event.channel],
            ...appRows(event),
            ['Session', event.session],
            ['JSON-RPC', event.rpc ? `${event.rpc.kind}${event.rpc.method ? ` ${event.rpc.method}` : ''}${event.rpc.id !== undefined ? ` #${String(event.rpc.id)}` : ''}` : undefined],
            ['Error', event.rpc?.errorMessage ? `${event.rpc.errorCode ?? ''} ${event.rpc.errorMessage}` : undefined],
            ['Size', formatBytes(event.bytes)],
            ['Duration', formatMs(event.durationMs)],
            ...meta.filter(([k]) => !(k === 'app' && event.channel === 'app')),
          ]}
        />
      </Section>
      <Section title={event.body !== undefined || event.truncated ? 'Body' : 'Text'}>
        <BodyView event={event} source={source} testId="traffic-body" />
      </Section>
    </div>
  );
}

function ExchangePayload({ selected, request, end, stream, source }: { selected: TraceEvent; request: TraceEvent; end?: TraceEvent; stream: TraceEvent[]; source: string }) {
  const answers = stream.filter((e) => e.rpc?.kind === 'result' || e.rpc?.kind === 'error' || e.batch?.some((b) => b.kind === 'result' || b.kind === 'error'));
  const showSelected = selected.seq !== request.seq && selected.seq !== end?.seq && (selected.body !== undefined || selected.truncated || selected.text);
  return (
    <div>
      {showSelected && (
        <Section title={`Selected event #${selected.seq}`} detail={`${selected.kind}${selected.sse?.id ? ` · id ${selected.sse.id}` : ''}`}>
          <BodyView event={selected} source={source} testId="traffic-selected-body" />
        </Section>
      )}
      <Section title="Request body">
        <BodyView event={request} source={source} testId="traffic-request-body" />
      </Section>
      {end?.body !== undefined || end?.truncated ? (
        <Section title="Response body">
          <BodyView event={end} source={source} testId="traffic-response-body" />
        </Section>
      ) : answers.length ? (
        answers.slice(0, 5).map((answer) => (
          <Section key={answer.seq} title={`Response (SSE event #${answer.seq})`} detail={answer.sse?.id ? `id ${answer.sse.id}` : undefined}>
            <BodyView event={answer} source={source} testId="traffic-response-body" />
          </Section>
        ))
      ) : (
        <Section title="Response body">
          <Text size="xs" c="dimmed">
            {stream.length ? `An event stream of ${stream.length} events without a JSON-RPC response (see Events).` : end ? (end.text ?? 'Empty.') : 'Not finished yet.'}
          </Text>
        </Section>
      )}
      {isErrorEvent(end ?? request) && end?.text && (
        <Text size="xs" c="red">
          {end.text}
        </Text>
      )}
    </div>
  );
}

function SseEvents({ events, start, source, more, selectedSeq }: { events: TraceEvent[]; start: number; source: string; more: boolean; selectedSeq?: number }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // What to show first: the selected event, else the JSON-RPC response, else the first with data.
  const [picked, setPicked] = useState<number | undefined>(
    () => selectedSeq ?? events.find((e) => e.rpc?.kind === 'result' || e.rpc?.kind === 'error')?.seq ?? events.find((e) => e.kind === 'sse-event' && !e.sse?.priming)?.seq,
  );
  const virtualizer = useVirtualizer({ count: events.length, getScrollElement: () => scrollRef.current, estimateSize: () => 22, overscan: 10, useFlushSync: false });
  const chosen = events.find((e) => e.seq === picked);
  if (events.length === 0) {
    return (
      <Text size="xs" c="dimmed">
        No events on this stream yet.
      </Text>
    );
  }
  return (
    <div>
      <div ref={scrollRef} className={classes.sseList} data-testid="traffic-sse-list">
        <div className={classes.sseHeader}>
          <span>id</span>
          <span>event</span>
          <span>time</span>
          <span>data</span>
        </div>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const e = events[item.index]!;
            const raw = e.kind === 'sse-event' ? (e.body === undefined ? (e.truncated ? '(large, click to load)' : '') : typeof e.body === 'string' ? e.body.slice(0, 400) : safeStringify(e.body).slice(0, 400)) : (e.text ?? '');
            const label = e.rpc ? (e.rpc.method ?? `${e.rpc.kind}${e.rpc.id !== undefined ? ` #${String(e.rpc.id)}` : ''}`) : '';
            const data = label ? `${label}  ${raw}` : raw;
            return (
              <div
                key={e.seq}
                className={`${classes.sseRow} ${e.seq === picked ? classes.selected : ''}`}
                style={{ transform: `translateY(${item.start}px)` }}
                onClick={() => setPicked(e.seq)}
                data-testid="sse-event"
                data-sse-id={e.sse?.id ?? ''}
                data-seq={e.seq}
              >
                <span title={clip(e.sse?.id ?? '', 300)}>{shortId(e.sse?.id)}</span>
                <span>{e.kind === 'sse-event' ? clip(e.sse?.event ?? 'message', 60) : e.kind === 'sse-retry' ? 'retry' : 'comment'}</span>
                <span>+{formatMs(e.ts - start)}</span>
                <span className={classes.dimmed}>{e.sse?.priming ? '(priming: id only)' : clip(data, 300)}</span>
              </div>
            );
          })}
        </div>
      </div>
      <Text size="xs" c="dimmed" mt={4}>
        {events.length.toLocaleString('en-US')} events{more ? ' shown (the first 5,000 of the exchange; use "Only this exchange" for all)' : ''}. Click one to see its data.
      </Text>
      {chosen && (
        <Section title={`Event #${chosen.seq}`} detail={`${chosen.sse?.id ? `id ${chosen.sse.id}` : ''}${chosen.rpc?.method ? ` · ${chosen.rpc.method}` : ''}`}>
          <BodyView key={chosen.seq} event={chosen} source={source} testId="traffic-sse-data" />
        </Section>
      )}
    </div>
  );
}
