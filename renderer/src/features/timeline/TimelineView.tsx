/**
 * Timeline: lanes per server and channel over time, from the live trace buffer or an imported
 * trace (paged in with traceQuery). The model is folded incrementally outside React state; the
 * canvas redraws on the buffer's tick.
 */
import { Alert, Progress, Stack, Text } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ServerStatus } from '../../../../contract';
import type { TraceEvent } from '../../../../contract/trace';
import { useApi } from '../../api/context';
import { useFullTraceFeed, useTraceBuffer } from '../../state/live';
import { useNavigation } from '../../state/navigation';
import { fromSeq } from '../../state/seq-search';
import { ModelSync } from './model';
import { TimelineCanvas } from './TimelineCanvas';

/** An imported trace is read whole, up to this many events. */
const MAX_IMPORTED_EVENTS = 500_000;
const PAGE = 5000;

interface ImportedTrace {
  source: string;
  events: TraceEvent[];
  version: number;
  total: number;
  done: boolean;
  error?: string;
}

/**
 * Kept outside the component so a trip to another tab does not re-read or re-fold anything:
 * the model per source, the imported trace being read, and the live events paged in from
 * before the buffer's window.
 */
const cache: {
  syncs: Map<string, ModelSync>;
  imported: ImportedTrace | null;
  earlier: TraceEvent[];
} = { syncs: new Map(), imported: null, earlier: [] };

/** How many events before the live window one "Load earlier" reads at most. */
const EARLIER_BATCH = 100_000;

function useImportedTrace(source: string): ImportedTrace | null {
  const api = useApi();
  const [state, setState] = useState<ImportedTrace | null>(cache.imported?.source === source ? cache.imported : null);
  useEffect(() => {
    if (source === 'live') return;
    if (cache.imported?.source === source && cache.imported.done && !cache.imported.error) {
      setState(cache.imported);
      return;
    }
    let cancelled = false;
    const events: TraceEvent[] = [];
    const publish = (next: ImportedTrace) => {
      cache.imported = next;
      if (!cancelled) setState(next);
    };
    publish({ source, events, version: 0, total: 0, done: false });
    (async () => {
      let cursor: number | undefined = 0;
      let version = 0;
      while (!cancelled && cursor !== undefined && events.length < MAX_IMPORTED_EVENTS) {
        const page: { events: TraceEvent[]; nextCursor?: number; total: number } = await api.traceQuery({ source, order: 'asc', limit: PAGE, cursor });
        if (cancelled) return;
        for (const event of page.events) events.push(event);
        cursor = page.nextCursor;
        publish({ source, events, version: ++version, total: page.total, done: cursor === undefined || events.length >= MAX_IMPORTED_EVENTS });
      }
    })().catch((e: Error) => {
      if (!cancelled) publish({ source, events, version: -1, total: 0, done: true, error: e.message });
    });
    return () => {
      cancelled = true;
    };
  }, [api, source]);
  return source === 'live' || state?.source !== source ? null : state;
}

export function TimelineView({ servers }: { servers: ServerStatus[] }) {
  const api = useApi();
  const nav = useNavigation();
  const buffer = useTraceBuffer();
  const live = nav.source.id === 'live';
  const imported = useImportedTrace(nav.source.id);
  const [earlier, setEarlier] = useState<{ loading: boolean; count: number; error?: string }>({ loading: false, count: cache.earlier.length });

  let sync = cache.syncs.get(nav.source.id);
  if (!sync) {
    // one imported trace at a time: forget the models of others
    for (const key of cache.syncs.keys()) if (key !== 'live') cache.syncs.delete(key);
    sync = new ModelSync();
    cache.syncs.set(nav.source.id, sync);
  }
  // The lanes draw every event: the buffer gets all of them while this view is open (until then
  // it holds only the newest few, with gaps, and the model waits).
  useFullTraceFeed(live);
  const whole = !live || buffer.full;
  const firstLive = whole ? (buffer.events[0]?.seq ?? Infinity) : Infinity;
  const events = useMemo(() => {
    if (!live) return imported?.events ?? [];
    if (!whole) return undefined;
    if (!cache.earlier.length) return buffer.events;
    const before = cache.earlier.slice(0, fromSeq(cache.earlier, firstLive));
    return before.length ? before.concat(buffer.events) : buffer.events;
    // `buffer.events` is appended to in place; its version says when
  }, [live, whole, imported, buffer.events, buffer.version, earlier.count, firstLive]);
  const dataVersion = live ? buffer.version : (imported?.version ?? 0);
  const model = useMemo(() => (events ? sync.sync(events) : sync.model), [sync, events, dataVersion]);

  const firstKnown = Math.min(firstLive, cache.earlier[0]?.seq ?? Infinity);
  const olderNotLoaded = live && Number.isFinite(firstKnown) ? firstKnown - 1 : 0;
  const loadEarlier = useCallback(async () => {
    setEarlier((e) => ({ ...e, loading: true, error: undefined }));
    try {
      const pages: TraceEvent[][] = [];
      let cursor: number | undefined = Math.min(cache.earlier[0]?.seq ?? Infinity, buffer.full ? (buffer.events[0]?.seq ?? Infinity) : Infinity);
      let loaded = 0;
      while (cursor !== undefined && Number.isFinite(cursor) && cursor > 1 && loaded < EARLIER_BATCH) {
        // descending from just before `cursor`
        const page: { events: TraceEvent[]; nextCursor?: number } = await api.traceQuery({ order: 'desc', limit: PAGE, cursor });
        if (!page.events.length) break;
        pages.push(page.events);
        loaded += page.events.length;
        cursor = page.nextCursor;
      }
      const older = pages.flat().reverse();
      cache.earlier = older.concat(cache.earlier);
      setEarlier({ loading: false, count: cache.earlier.length });
    } catch (e) {
      setEarlier((s) => ({ ...s, loading: false, error: (e as Error).message }));
    }
  }, [api, buffer]);
  return (
    <Stack gap="xs">
      {earlier.error && (
        <Alert color="red" title="Could not read earlier events" withCloseButton onClose={() => setEarlier((e) => ({ ...e, error: undefined }))}>
          {earlier.error}
        </Alert>
      )}
      {imported?.error && (
        <Alert color="red" title="Could not read the imported trace">
          {imported.error}
        </Alert>
      )}
      {imported && !imported.done && (
        <Stack gap={4}>
          <Text size="xs" c="dimmed">
            Reading the imported trace: {imported.events.length.toLocaleString('en-US')} of {imported.total.toLocaleString('en-US')} events
          </Text>
          <Progress size="xs" value={imported.total ? (imported.events.length / imported.total) * 100 : 0} />
        </Stack>
      )}
      {imported?.done && imported.total > imported.events.length && !imported.error && (
        <Text size="xs" c="yellow.7">
          Showing the first {imported.events.length.toLocaleString('en-US')} of {imported.total.toLocaleString('en-US')} events.
        </Text>
      )}
      <TimelineCanvas
        model={model}
        version={model.version}
        layoutVersion={model.layoutVersion}
        servers={servers}
        live={live}
        source={nav.source.id}
        olderNotLoaded={olderNotLoaded}
        loadingEarlier={earlier.loading}
        onLoadEarlier={loadEarlier}
      />
    </Stack>
  );
}
