/**
 * The settings port. Electron persists through electron-store, everything else through conf
 * (electron-store's own foundation); core sees only this interface. Both go through
 * `ValidatedSettingsStore`, which owns the schema, migrations, and what happens to a file
 * that cannot be read: it is backed up and reported, never silently replaced. Settings hold
 * settings only: what is remembered of calls (inputs, saved calls) lives in the call memory
 * (call-memory.ts), and an older file that still holds it hands it over once.
 */
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { RecordingRetention, ServerConfig } from '../../../contract';
import { formatIssues } from '../errors';
import { backupPath } from './backup';
import { CALL_MEMORY_FILE, carryIntoCallMemory, parseCallMemory, type CallMemoryContent } from './call-memory';

export const SETTINGS_VERSION = 3;

export const SettingsSchema = z.object({
  version: z.number().int().default(SETTINGS_VERSION),
  servers: z.array(ServerConfig).default([]),
  /** Record tool-call argument values in the audit (keys are always recorded). */
  auditArgumentValues: z.boolean().default(false),
  oauthSystemBrowser: z.boolean().default(false),
  /**
   * The servers the person left connected (or trying to connect) when the app last stopped, by
   * id: reconnected at start where their `connectAtStart` is on. A server the person disconnected
   * is not in it; quitting does not take anyone out.
   */
  connectedServers: z.array(z.string()).default([]),
  /** The recordings library's bounds (docs/recordings.md): 2 GiB and 30 days unless changed. */
  recordingRetention: RecordingRetention.default({ maxBytes: 2 * 1024 ** 3, maxAgeDays: 30 }),
});

export type Settings = z.output<typeof SettingsSchema>;

export interface SettingsStore {
  /** The whole settings document, validated (a copy the caller may change). */
  read(): Settings;
  /**
   * The same document without a copy, for a hot path that only reads a field (a tool call reads
   * `auditArgumentValues`). Never to be changed by the caller. Optional: a store without it is read().
   */
  peek?(): Readonly<Settings>;
  write(settings: Settings): void;
  /** Where the settings live, for messages and the About panel. */
  readonly location: string;
  /** What went wrong loading them (a corrupt file backed up, entries skipped), for the user. */
  readonly problems?: string[];
}

/** A settings store in memory, for tests, the CLI and `--ephemeral` runs. */
export class MemorySettingsStore implements SettingsStore {
  readonly location = '(memory)';
  private settings: Settings = SettingsSchema.parse({});

  read(): Settings {
    return structuredClone(this.settings);
  }

  peek(): Readonly<Settings> {
    return this.settings;
  }

  write(settings: Settings): void {
    this.settings = structuredClone(SettingsSchema.parse(settings));
  }
}

/** What a persistence library offers: a JSON document at a path. `open` throws when the file is unreadable. */
export interface RawDocument {
  readonly path: string;
  open(): void;
  read(): unknown;
  write(document: Settings): void;
}

/** Migrations from each older version to the next; index = from-version. */
const MIGRATIONS: ((doc: Record<string, unknown>) => Record<string, unknown>)[] = [
  // 0 → 1: the first release had no version field and stored servers as-is.
  (doc) => ({ ...doc, version: 1 }),
  // 1 → 2: "connect at start" (on for every server) and the servers to reconnect. Which ones were
  // connected was never recorded, so every enabled server counts as such: the first start after
  // the upgrade brings back all of them, and from then on only what was left connected.
  (doc) => {
    const servers = Array.isArray(doc.servers) ? doc.servers : undefined;
    const withSwitch = servers?.map((s) => (s && typeof s === 'object' && !Array.isArray(s) ? { connectAtStart: true, ...(s as object) } : s));
    const enabled = (servers ?? []).filter((s): s is { id: string } => !!s && typeof s === 'object' && typeof (s as { id?: unknown }).id === 'string' && (s as { disabled?: unknown }).disabled !== true);
    return { ...doc, ...(withSwitch ? { servers: withSwitch } : {}), connectedServers: enabled.map((s) => s.id), version: 2 };
  },
  // 2 → 3: remembered inputs and saved calls leave the settings (`parseSettingsDocument` carries them out).
  (doc) => ({ ...doc, version: 3 }),
];

export interface ParsedSettings {
  settings: Settings;
  problems: string[];
  /** The stored document needs rewriting (migrated, or entries dropped). */
  changed: boolean;
  /** Remembered inputs and saved calls found in the document (before format 3), for the call memory. */
  carried?: CallMemoryContent;
}

/** Validates a stored document entry by entry: one bad server does not cost the others. */
export function parseSettingsDocument(raw: unknown): ParsedSettings {
  const problems: string[] = [];
  let doc: Record<string, unknown> = raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as Record<string, unknown>) } : {};
  let changed = false;
  let version = typeof doc.version === 'number' ? doc.version : 0;
  if (version > SETTINGS_VERSION) {
    problems.push(`The settings were written by a newer Switchboard (format ${version}); unknown fields are ignored and not saved back.`);
  }
  while (version < SETTINGS_VERSION) {
    doc = MIGRATIONS[version]!(doc);
    version++;
    changed = true;
  }
  const servers: ServerConfig[] = [];
  if (doc.servers !== undefined && !Array.isArray(doc.servers)) {
    changed = true;
    problems.push(`The settings' "servers" is not a list (it is ${describeJsonType(doc.servers)}); Switchboard started with no servers.`);
  }
  // What older files remembered of calls goes to the call memory. Remembered tool inputs are
  // argument values: carried only while the user lets the audit keep them.
  let carried: CallMemoryContent | undefined;
  if ('toolInputs' in doc || 'savedCalls' in doc) {
    const { toolInputs, savedCalls, ...rest } = doc;
    const { content, skipped } = parseCallMemory({ toolInputs: doc.auditArgumentValues === true ? toolInputs : {}, savedCalls });
    if (skipped) problems.push(`${skipped === 1 ? 'A remembered input or saved call' : `${skipped} remembered inputs or saved calls`} in the settings could not be read and ${skipped === 1 ? 'was' : 'were'} skipped.`);
    carried = content;
    doc = rest;
    changed = true;
  }
  for (const [index, entry] of (Array.isArray(doc.servers) ? doc.servers : []).entries()) {
    const parsed = ServerConfig.safeParse(entry);
    if (parsed.success) servers.push(parsed.data);
    else {
      changed = true;
      const name = (entry as { name?: unknown })?.name;
      problems.push(`Server ${typeof name === 'string' && name ? `"${name}"` : `#${index + 1}`} in the settings is invalid and was skipped: ${formatIssues(parsed.error).map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    }
  }
  const rest = SettingsSchema.omit({ servers: true }).safeParse(doc);
  const settings = SettingsSchema.parse({ ...(rest.success ? rest.data : {}), version: SETTINGS_VERSION, servers });
  if (!rest.success) {
    changed = true;
    problems.push(`Some settings were invalid and were reset to defaults: ${formatIssues(rest.error).map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  }
  return { settings, problems, changed, ...(carried ? { carried } : {}) };
}

export class ValidatedSettingsStore implements SettingsStore {
  readonly problems: string[] = [];
  private cache: Settings;

  constructor(private readonly doc: RawDocument) {
    try {
      doc.open();
    } catch (error) {
      const backup = backupPath(doc.path);
      renameSync(doc.path, backup);
      this.problems.push(
        `The settings file ${doc.path} could not be read (${(error as Error).message}). It was moved to ${backup}, nothing was deleted, and Switchboard started with empty settings.`,
      );
      doc.open();
    }
    const parsed = parseSettingsDocument(doc.read());
    this.cache = parsed.settings;
    const problems = [...parsed.problems];
    // Into the call memory before the settings are rewritten without it: a crash between the two
    // leaves it in both places, never in neither.
    if (parsed.carried) {
      const target = join(dirname(doc.path), CALL_MEMORY_FILE);
      try {
        this.problems.push(...carryIntoCallMemory(target, parsed.carried));
      } catch (error) {
        problems.push(`The remembered inputs and saved calls could not be moved to ${target} (${(error as Error).message}).`);
      }
    }
    if (problems.length && existsSync(doc.path)) {
      const backup = backupPath(doc.path);
      copyFileSync(doc.path, backup);
      this.problems.push(...problems.map((p) => `${p} (the original file is kept at ${backup})`));
    }
    if (parsed.changed) doc.write(parsed.settings);
  }

  get location(): string {
    return this.doc.path;
  }

  read(): Settings {
    return structuredClone(this.cache);
  }

  peek(): Readonly<Settings> {
    return this.cache;
  }

  write(settings: Settings): void {
    const valid = SettingsSchema.parse(settings);
    this.doc.write(valid);
    this.cache = structuredClone(valid);
  }
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
