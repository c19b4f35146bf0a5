/**
 * The Auth view's data for one server: its sign-in state (`authStatus`, fetched again on
 * `authChanged` and on its connection's state changes) and its flow as steps (the trace,
 * queried again — throttled — when a batch brings events of that flow).
 */
import { useEffect, useState } from 'react';
import type { AuthStatus } from '../../../../contract';
import type { TraceEvent } from '../../../../contract/trace';
import { useApi } from '../../api/context';
import { buildSteps, isAuthRelevant, type AuthStep } from './steps';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function useAuthStatus(serverId: string): { status?: AuthStatus; error?: string; reload(): void } {
  const api = useApi();
  const [state, setState] = useState<{ serverId: string; status?: AuthStatus; error?: string }>({ serverId });
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () => {
      timer = undefined;
      api.authStatus({ id: serverId }).then(
        (status) => live && setState({ serverId, status }),
        (error) => live && setState((s) => ({ serverId, status: s.serverId === serverId ? s.status : undefined, error: errorText(error) })),
      );
    };
    // Bursts of changes (a flow's steps) are one fetch.
    const schedule = () => {
      timer ??= setTimeout(load, 150);
    };
    load();
    const offAuth = api.on('authChanged', (e) => e.serverId === serverId && schedule());
    const offState = api.on('serverState', (s) => s.id === serverId && schedule());
    return () => {
      live = false;
      clearTimeout(timer);
      offAuth();
      offState();
    };
  }, [api, serverId, nonce]);
  const current = state.serverId === serverId ? state : { serverId };
  return { status: current.status, error: current.error, reload: () => setNonce((n) => n + 1) };
}

/** How many of the flow's most recent events are read (the auth channel is low-rate). */
const AUTH_LIMIT = 5000;
/** How many recent 401/403 challenges are shown with their requests. */
const CHALLENGE_LIMIT = 50;
const THROTTLE_MS = 500;

export interface StepsState {
  steps: AuthStep[];
  loading: boolean;
  error?: string;
  /** Older events of the flow exist than were read. */
  more: boolean;
}

export function useAuthSteps(serverId: string): StepsState {
  const api = useApi();
  const [state, setState] = useState<StepsState & { serverId: string }>({ serverId, steps: [], loading: true, more: false });
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let dirty = false;
    // A challenge's exchange, once ended, never changes: read it once.
    const finished = new Map<string, TraceEvent[]>();

    const challengeEvents = async (): Promise<TraceEvent[]> => {
      const page = await api.traceQuery({ servers: [serverId], kinds: ['http-response'], statusClass: [4], order: 'desc', limit: 500 });
      const challenges = page.events.filter((e) => e.channel !== 'auth' && isAuthRelevant(e) && e.exchange).slice(0, CHALLENGE_LIMIT);
      const out: TraceEvent[] = [];
      await Promise.all(
        challenges.map(async (response) => {
          const exchange = response.exchange!;
          let events = finished.get(exchange);
          if (!events) {
            const found = await api.traceQuery({ servers: [serverId], exchange, kinds: ['http-request', 'http-response', 'http-end'], order: 'asc', limit: 10 });
            events = found.events.length ? found.events : [response];
            if (events.some((e) => e.kind === 'http-end')) finished.set(exchange, events);
          }
          out.push(...events);
        }),
      );
      return out;
    };

    const load = async () => {
      timer = undefined;
      if (running) {
        dirty = true;
        return;
      }
      running = true;
      try {
        const [auth, challenges] = await Promise.all([api.traceQuery({ servers: [serverId], channels: ['auth'], order: 'desc', limit: AUTH_LIMIT }), challengeEvents()]);
        if (live) setState({ serverId, steps: buildSteps([...auth.events, ...challenges]), loading: false, more: auth.nextCursor !== undefined });
      } catch (error) {
        if (live) setState((s) => ({ ...s, serverId, loading: false, error: errorText(error) }));
      } finally {
        running = false;
        if (dirty && live) {
          dirty = false;
          schedule();
        }
      }
    };
    const schedule = () => {
      timer ??= setTimeout(() => void load(), THROTTLE_MS);
    };
    void load();
    const offTrace = api.on('traceBatch', ({ events }) => {
      if (events.some((e) => e.server === serverId && isAuthRelevant(e))) schedule();
    });
    const offAuth = api.on('authChanged', (e) => e.serverId === serverId && schedule());
    return () => {
      live = false;
      clearTimeout(timer);
      offTrace();
      offAuth();
    };
  }, [api, serverId]);
  return state.serverId === serverId ? state : { steps: [], loading: true, more: false };
}

/** The whole payload of an event whose stored body is a preview. */
export function useFullBody(event: TraceEvent | undefined): { value: unknown; loading: boolean; error?: string } {
  const api = useApi();
  const seq = event?.seq;
  const needs = event?.truncated === true;
  const [state, setState] = useState<{ seq?: number; value?: unknown; loading: boolean; error?: string }>({ loading: false });
  useEffect(() => {
    if (!needs || seq === undefined) return;
    let live = true;
    setState({ seq, loading: true });
    api.traceEvent({ seq }).then(
      ({ payload }) => live && setState({ seq, value: payload, loading: false }),
      (error) => live && setState({ seq, loading: false, error: errorText(error) }),
    );
    return () => {
      live = false;
    };
  }, [api, seq, needs]);
  if (!event) return { value: undefined, loading: false };
  if (!needs) return { value: event.body, loading: false };
  if (state.seq === seq && !state.loading && !state.error) return { value: state.value, loading: false };
  return { value: event.body, loading: state.seq !== seq || state.loading, error: state.seq === seq ? state.error : undefined };
}
