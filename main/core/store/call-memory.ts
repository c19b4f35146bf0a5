/**
 * What Switchboard remembers of tool calls: each tool's last arguments (to pre-fill its form,
 * newest 500 tools) and the saved calls. Kept apart from the settings, in `call-memory.json`
 * beside them (owner-only), so a call never rewrites the settings: changes are held in memory and
 * written behind (one atomic write 1 s after the last change, at most 5 s after the first),
 * and on shutdown. The policy — which inputs may be kept, redacted how — is the call handlers';
 * this is storage. Settings files from before it carried both; they move here once
 * (`carryIntoCallMemory`, from the settings store).
 */
import { copyFileSync, existsSync, readFileSync, renameSync } from 'node:fs';
import { JsonObject, SavedCall } from '../../../contract';
import { backupPath } from './backup';
import { writeFileAtomic, writeFileAtomicSync } from './atomic-file';
import { WriteBehind, type WriteTimers } from './write-behind';

export const CALL_MEMORY_FILE = 'call-memory.json';
const CALL_MEMORY_VERSION = 1;
/** Remembered inputs: the newest this many tools. */
export const TOOL_INPUTS_KEEP = 500;
export const CALL_MEMORY_DELAY_MS = 1_000;
const CALL_MEMORY_MAX_DELAY_MS = 5_000;

/** A tool's arguments (the contract's JsonObject). */
type ToolArgs = Record<string, unknown>;

export interface CallMemoryContent {
  /** Oldest first. */
  toolInputs: Record<string, ToolArgs>;
  savedCalls: SavedCall[];
}

/** Entry by entry: one bad entry costs only itself. */
export function parseCallMemory(raw: unknown): { content: CallMemoryContent; skipped: number } {
  const doc = isObject(raw) ? raw : {};
  let skipped = 0;
  const toolInputs: Record<string, ToolArgs> = {};
  for (const [tool, args] of Object.entries(isObject(doc.toolInputs) ? doc.toolInputs : {})) {
    const parsed = JsonObject.safeParse(args);
    if (parsed.success) toolInputs[tool] = parsed.data;
    else skipped++;
  }
  const savedCalls: SavedCall[] = [];
  for (const entry of Array.isArray(doc.savedCalls) ? doc.savedCalls : []) {
    const parsed = SavedCall.safeParse(entry);
    if (parsed.success) savedCalls.push(parsed.data);
    else skipped++;
  }
  if (doc.toolInputs !== undefined && !isObject(doc.toolInputs)) skipped++;
  if (doc.savedCalls !== undefined && !Array.isArray(doc.savedCalls)) skipped++;
  return { content: { toolInputs, savedCalls }, skipped };
}

/**
 * The file's content, and what went wrong reading it: an unreadable file is moved aside, a file
 * with bad entries copied aside, both reported; nothing is silently lost.
 */
function readCallMemoryFile(path: string): { content: CallMemoryContent; problems: string[] } {
  const empty = { content: { toolInputs: {}, savedCalls: [] }, problems: [] };
  if (!existsSync(path)) return empty;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const backup = backupPath(path);
    renameSync(path, backup);
    return { ...empty, problems: [`The remembered inputs and saved calls in ${path} could not be read (${(error as Error).message}). The file was moved to ${backup}, nothing was deleted, and Switchboard started without them.`] };
  }
  const { content, skipped } = parseCallMemory(raw);
  if (!skipped) return { content, problems: [] };
  const backup = backupPath(path);
  copyFileSync(path, backup);
  return { content, problems: [`${skipped === 1 ? 'An entry' : `${skipped} entries`} in ${path} could not be read and ${skipped === 1 ? 'was' : 'were'} skipped (the original file is kept at ${backup}).`] };
}

function serialize(content: CallMemoryContent): string {
  return JSON.stringify({ version: CALL_MEMORY_VERSION, ...content });
}

/**
 * Moves what an older settings file held into the call memory file at `path`, merged with what
 * is already there (which wins: it is newer). Synchronous and immediate, before the settings are
 * rewritten without it. Returns the problems met reading the existing file.
 */
export function carryIntoCallMemory(path: string, carried: CallMemoryContent): string[] {
  const existing = readCallMemoryFile(path);
  const ids = new Set(existing.content.savedCalls.map((c) => c.id));
  const toolInputs = { ...carried.toolInputs };
  for (const [tool, args] of Object.entries(existing.content.toolInputs)) {
    delete toolInputs[tool];
    toolInputs[tool] = args;
  }
  const savedCalls = [...carried.savedCalls.filter((c) => !ids.has(c.id)), ...existing.content.savedCalls];
  writeFileAtomicSync(path, serialize({ toolInputs: keepNewest(toolInputs), savedCalls }));
  return existing.problems;
}

export interface CallMemoryOptions {
  /** The file; absent: memory only (tests, the CLI, `--ephemeral` runs). */
  path?: string;
  /** Tests: when "later" is. */
  timers?: WriteTimers;
  /** A write that failed (tried again on the next change). */
  onError?: (error: unknown) => void;
}

export class CallMemory {
  readonly location: string;
  readonly problems: string[];
  /** Insertion order is recency: the last one set is the newest. */
  private readonly inputs: Map<string, ToolArgs>;
  private saved: SavedCall[];
  private readonly writer?: WriteBehind;

  constructor(options: CallMemoryOptions = {}) {
    const { path } = options;
    this.location = path ?? '(memory)';
    const loaded = path ? readCallMemoryFile(path) : { content: { toolInputs: {}, savedCalls: [] }, problems: [] };
    this.problems = loaded.problems;
    this.inputs = new Map(Object.entries(keepNewest(loaded.content.toolInputs)));
    this.saved = loaded.content.savedCalls;
    if (path) {
      this.writer = new WriteBehind(() => writeFileAtomic(path, serialize(this.content())), {
        delayMs: CALL_MEMORY_DELAY_MS,
        maxDelayMs: CALL_MEMORY_MAX_DELAY_MS,
        timers: options.timers,
        onError: options.onError,
      });
    }
  }

  /** How many times the file was written (tests, measurements). */
  get writes(): number {
    return this.writer?.writes ?? 0;
  }

  lastInput(tool: string): ToolArgs | undefined {
    return this.inputs.get(tool);
  }

  /** Keeps `args` (already redacted) as the tool's last input, the newest; the oldest beyond 500 go. */
  rememberInput(tool: string, args: ToolArgs): void {
    this.inputs.delete(tool);
    this.inputs.set(tool, args);
    for (const stale of this.inputs.keys()) {
      if (this.inputs.size <= TOOL_INPUTS_KEEP) break;
      this.inputs.delete(stale);
    }
    this.changed();
  }

  forgetInput(tool: string): void {
    if (this.inputs.delete(tool)) this.changed();
  }

  /** Every remembered input (argument values may no longer be kept). */
  forgetInputs(): void {
    if (this.inputs.size === 0) return;
    this.inputs.clear();
    this.changed();
  }

  savedCalls(serverName?: string): SavedCall[] {
    return this.saved.filter((c) => !serverName || c.serverName === serverName);
  }

  addSavedCall(call: SavedCall): void {
    this.saved = [...this.saved, call];
    this.changed();
  }

  deleteSavedCall(id: string): boolean {
    const kept = this.saved.filter((c) => c.id !== id);
    if (kept.length === this.saved.length) return false;
    this.saved = kept;
    this.changed();
    return true;
  }

  /** Writes what waits now. */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
  }

  /** Writes what waits; later changes are written at once. */
  close(): Promise<void> {
    return this.writer?.close() ?? Promise.resolve();
  }

  private content(): CallMemoryContent {
    return { toolInputs: Object.fromEntries(this.inputs), savedCalls: this.saved };
  }

  private changed(): void {
    this.writer?.touch();
  }
}

/** The newest TOOL_INPUTS_KEEP entries of an oldest-first record. */
function keepNewest(toolInputs: Record<string, ToolArgs>): Record<string, ToolArgs> {
  const entries = Object.entries(toolInputs);
  return entries.length <= TOOL_INPUTS_KEEP ? toolInputs : Object.fromEntries(entries.slice(entries.length - TOOL_INPUTS_KEEP));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
