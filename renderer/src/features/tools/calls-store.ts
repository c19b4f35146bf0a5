/**
 * Tool sessions outside React: per tool, the arguments being edited, the call in flight (with
 * its progress) and the last outcome. Calls keep running, and their results land, when the
 * user switches tools or views; progress notifications (possibly hundreds a second) are
 * coalesced to at most one update every PROGRESS_TICK_MS.
 */
import type { HistoryEntry, ToolEntry } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
import { perApi } from '../../state/per-api';
import { Signal } from '../../state/store';
import { useSelect } from '../../state/useStore';
import { errorOutcome, type CallOutcome } from './call-outcome';
import { initialValue, isObject, type JsonSchema } from './schema';
import { schemaBounds } from './validation';

const PROGRESS_TICK_MS = 100;

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
  /** How many notifications arrived. */
  count: number;
}

export interface RunningCall {
  callId: string;
  /** Date.now() at the start. */
  startedAt: number;
  args: Record<string, unknown>;
  progress?: Progress;
  cancelling: boolean;
}

export type ArgsOrigin = 'defaults' | 'remembered' | 'history' | 'saved' | 'edited';

export interface ToolSession {
  args: Record<string, unknown>;
  origin: ArgsOrigin;
  running?: RunningCall;
  outcome?: CallOutcome;
}

/**
 * One per API (window): the sessions, the calls in flight by id, the history list and the
 * saved calls' change count. The listeners hear every change of any of them.
 */
class ToolCalls extends Signal {
  readonly sessions = new Map<string, ToolSession>();
  readonly byCallId = new Map<string, string>();
  history: HistoryEntry[] = [];
  historyLoaded = false;
  savedVersion = 0;
  readonly pendingProgress = new Map<string, Progress>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(api: SwitchboardApi) {
    super();
    api.on('callProgress', ({ callId, progress, total, message }) => {
      const tool = this.byCallId.get(callId);
      const session = tool ? this.sessions.get(tool) : undefined;
      if (!tool || !session?.running || session.running.callId !== callId) return;
      // Coalesced and published on the next tick: progress can arrive very fast.
      const count = (this.pendingProgress.get(tool)?.count ?? session.running.progress?.count ?? 0) + 1;
      this.pendingProgress.set(tool, { progress, total, message, count });
      this.flushTimer ??= setTimeout(() => this.flushProgress(), PROGRESS_TICK_MS);
    });
  }

  update(tool: string, patch: (session: ToolSession) => ToolSession): void {
    const current = this.sessions.get(tool);
    if (!current) return;
    this.sessions.set(tool, patch(current));
    this.notify();
  }

  private flushProgress(): void {
    this.flushTimer = null;
    for (const [name, next] of this.pendingProgress) {
      const s = this.sessions.get(name);
      if (s?.running) this.sessions.set(name, { ...s, running: { ...s.running, progress: next } });
    }
    this.pendingProgress.clear();
    this.notify();
  }
}

const callsFor = perApi((api) => new ToolCalls(api));

export function defaultArgs(tool: ToolEntry): Record<string, unknown> {
  const schema = tool.inputSchema as JsonSchema;
  if (!schemaBounds(schema).ok) return {};
  const value = initialValue(schema, schema, true);
  return isObject(value) ? value : {};
}

/** Creates the tool's session (schema defaults), then pre-fills the arguments last used with it. */
export function ensureSession(api: SwitchboardApi, tool: ToolEntry): void {
  const calls = callsFor(api);
  if (calls.sessions.has(tool.name)) return;
  calls.sessions.set(tool.name, { args: defaultArgs(tool), origin: 'defaults' });
  calls.notify();
  api.lastToolInput({ tool: tool.name }).then(
    ({ args }) => {
      const session = calls.sessions.get(tool.name);
      if (args && session && session.origin === 'defaults') calls.update(tool.name, (s) => ({ ...s, args, origin: 'remembered' }));
    },
    () => undefined,
  );
}

export function setArgs(api: SwitchboardApi, tool: string, args: Record<string, unknown>, origin: ArgsOrigin = 'edited'): void {
  const calls = callsFor(api);
  if (!calls.sessions.has(tool)) calls.sessions.set(tool, { args, origin });
  calls.update(tool, (s) => ({ ...s, args, origin }));
}

export function useToolSession(api: SwitchboardApi, tool: string): ToolSession | undefined {
  const calls = callsFor(api);
  return useSelect(calls, () => calls.sessions.get(tool));
}

function newCallId(): string {
  try {
    return crypto.randomUUID();
  } catch {
    return `call-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  }
}

/** Calls a tool with the session's arguments (or `args`), following its progress. */
export async function runCall(
  api: SwitchboardApi,
  tool: ToolEntry,
  options: { args?: Record<string, unknown>; timeoutMs?: number; resetTimeoutOnProgress: boolean },
): Promise<void> {
  const calls = callsFor(api);
  const session = calls.sessions.get(tool.name);
  if (!session || session.running) return;
  const args = options.args ?? session.args;
  const callId = newCallId();
  calls.byCallId.set(callId, tool.name);
  calls.update(tool.name, (s) => ({ ...s, args, running: { callId, startedAt: Date.now(), args, cancelling: false } }));
  const startedAt = Date.now();
  try {
    const value = await api.callTool({ tool: tool.name, args, timeoutMs: options.timeoutMs, resetTimeoutOnProgress: options.resetTimeoutOnProgress, callId });
    calls.update(tool.name, (s) => ({ ...s, running: undefined, outcome: { kind: 'result', value, args, at: Date.now() } }));
  } catch (error) {
    const details = errorOutcome(error);
    const cancelled = details.cancelled || calls.sessions.get(tool.name)?.running?.cancelling === true;
    const durationMs = details.detail?.durationMs ?? Date.now() - startedAt;
    calls.update(tool.name, (s) => ({ ...s, running: undefined, outcome: { kind: 'error', ...details, cancelled, args, at: Date.now(), durationMs } }));
  } finally {
    calls.byCallId.delete(callId);
    calls.pendingProgress.delete(tool.name);
  }
  // The outcome carries its own trace seqs (the reply, or the error's detail); the history list
  // is refreshed only once it has been shown.
  if (calls.historyLoaded) void refreshHistory(api);
}

export async function cancelRun(api: SwitchboardApi, tool: string): Promise<void> {
  const calls = callsFor(api);
  const running = calls.sessions.get(tool)?.running;
  if (!running || running.cancelling) return;
  calls.update(tool, (s) => (s.running ? { ...s, running: { ...s.running, cancelling: true } } : s));
  try {
    await api.cancelCall({ callId: running.callId });
  } catch {
    calls.update(tool, (s) => (s.running ? { ...s, running: { ...s.running, cancelling: false } } : s));
  }
}

// --- history and saved calls ------------------------------------------------------------------

export async function refreshHistory(api: SwitchboardApi): Promise<void> {
  const calls = callsFor(api);
  try {
    calls.history = await api.listHistory({ limit: 500 });
    calls.historyLoaded = true;
    calls.notify();
  } catch {
    /* keep what we had */
  }
}

export function useHistory(api: SwitchboardApi): { entries: HistoryEntry[]; loaded: boolean } {
  const calls = callsFor(api);
  const entries = useSelect(calls, () => calls.history);
  return { entries, loaded: calls.historyLoaded };
}

export function savedChanged(api: SwitchboardApi): void {
  const calls = callsFor(api);
  calls.savedVersion++;
  calls.notify();
}

export function useSavedVersion(api: SwitchboardApi): number {
  const calls = callsFor(api);
  return useSelect(calls, () => calls.savedVersion);
}
