/**
 * Tool sessions outside React: per tool, the arguments being edited, the call in flight (with
 * its progress) and the last outcome. Calls keep running, and their results land, when the
 * user switches tools or views; progress notifications (possibly hundreds a second) are
 * coalesced to at most one update every PROGRESS_TICK_MS.
 */
import { useSyncExternalStore } from 'react';
import type { HistoryEntry, ToolEntry } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';
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

const sessions = new Map<string, ToolSession>();
const byCallId = new Map<string, string>();
const listeners = new Set<() => void>();
let history: HistoryEntry[] = [];
let historyLoaded = false;
let savedVersion = 0;
let progressUnsubscribe: (() => void) | null = null;
let flushTimer: ReturnType<typeof setTimeout> | null = null;
const pendingProgress = new Map<string, Progress>();

function emit(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function update(tool: string, patch: (session: ToolSession) => ToolSession): void {
  const current = sessions.get(tool);
  if (!current) return;
  sessions.set(tool, patch(current));
  emit();
}

export function defaultArgs(tool: ToolEntry): Record<string, unknown> {
  const schema = tool.inputSchema as JsonSchema;
  if (!schemaBounds(schema).ok) return {};
  const value = initialValue(schema, schema, true);
  return isObject(value) ? value : {};
}

/** Creates the tool's session (schema defaults), then pre-fills the arguments last used with it. */
export function ensureSession(api: SwitchboardApi, tool: ToolEntry): void {
  if (sessions.has(tool.name)) return;
  sessions.set(tool.name, { args: defaultArgs(tool), origin: 'defaults' });
  emit();
  api.lastToolInput({ tool: tool.name }).then(
    ({ args }) => {
      const session = sessions.get(tool.name);
      if (args && session && session.origin === 'defaults') update(tool.name, (s) => ({ ...s, args, origin: 'remembered' }));
    },
    () => undefined,
  );
}

export function setArgs(tool: string, args: Record<string, unknown>, origin: ArgsOrigin = 'edited'): void {
  if (!sessions.has(tool)) sessions.set(tool, { args, origin });
  update(tool, (s) => ({ ...s, args, origin }));
}

export function useToolSession(tool: string): ToolSession | undefined {
  return useSyncExternalStore(subscribe, () => sessions.get(tool));
}

function ensureProgress(api: SwitchboardApi): void {
  if (progressUnsubscribe) return;
  progressUnsubscribe = api.on('callProgress', ({ callId, progress, total, message }) => {
    const tool = byCallId.get(callId);
    const session = tool ? sessions.get(tool) : undefined;
    if (!tool || !session?.running || session.running.callId !== callId) return;
    // Coalesced and published on the next tick: progress can arrive very fast.
    const count = (pendingProgress.get(tool)?.count ?? session.running.progress?.count ?? 0) + 1;
    pendingProgress.set(tool, { progress, total, message, count });
    flushTimer ??= setTimeout(() => {
      flushTimer = null;
      for (const [name, next] of pendingProgress) {
        const s = sessions.get(name);
        if (s?.running) sessions.set(name, { ...s, running: { ...s.running, progress: next } });
      }
      pendingProgress.clear();
      emit();
    }, PROGRESS_TICK_MS);
  });
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
  const session = sessions.get(tool.name);
  if (!session || session.running) return;
  const args = options.args ?? session.args;
  const callId = newCallId();
  ensureProgress(api);
  byCallId.set(callId, tool.name);
  update(tool.name, (s) => ({ ...s, args, running: { callId, startedAt: Date.now(), args, cancelling: false } }));
  const startedAt = Date.now();
  try {
    const value = await api.callTool({ tool: tool.name, args, timeoutMs: options.timeoutMs, resetTimeoutOnProgress: options.resetTimeoutOnProgress, callId });
    update(tool.name, (s) => ({ ...s, running: undefined, outcome: { kind: 'result', value, args, at: Date.now() } }));
  } catch (error) {
    const details = errorOutcome(error);
    const cancelled = details.cancelled || sessions.get(tool.name)?.running?.cancelling === true;
    const durationMs = details.detail?.durationMs ?? Date.now() - startedAt;
    update(tool.name, (s) => ({ ...s, running: undefined, outcome: { kind: 'error', ...details, cancelled, args, at: Date.now(), durationMs } }));
  } finally {
    byCallId.delete(callId);
    pendingProgress.delete(tool.name);
  }
  // The outcome carries its own trace seqs (the reply, or the error's detail); the history list
  // is refreshed only once it has been shown.
  if (historyLoaded) void refreshHistory(api);
}

export async function cancelRun(api: SwitchboardApi, tool: string): Promise<void> {
  const running = sessions.get(tool)?.running;
  if (!running || running.cancelling) return;
  update(tool, (s) => (s.running ? { ...s, running: { ...s.running, cancelling: true } } : s));
  try {
    await api.cancelCall({ callId: running.callId });
  } catch {
    update(tool, (s) => (s.running ? { ...s, running: { ...s.running, cancelling: false } } : s));
  }
}

// --- history and saved calls ------------------------------------------------------------------

export async function refreshHistory(api: SwitchboardApi): Promise<void> {
  try {
    history = await api.listHistory({ limit: 500 });
    historyLoaded = true;
    emit();
  } catch {
    /* keep what we had */
  }
}

export function useHistory(): { entries: HistoryEntry[]; loaded: boolean } {
  const entries = useSyncExternalStore(subscribe, () => history);
  return { entries, loaded: historyLoaded };
}

export function savedChanged(): void {
  savedVersion++;
  emit();
}

export function useSavedVersion(): number {
  return useSyncExternalStore(subscribe, () => savedVersion);
}
