/**
 * Reads the server lists people already have: `mcpServers` (Claude Desktop, Cursor, Windsurf,
 * project .mcp.json), VS Code's `servers` (+ `inputs`), and Switchboard's own export. Each entry
 * is parsed on its own: a broken one is reported by name and the rest still import.
 */
import type { z } from 'zod';
import { LIMITS, depthOf } from '../../../contract/bounded-json';
import { ServerConfigInput } from '../../../contract';
import { formatIssues } from '../errors';

/** The named limits of a server-list import. */
export const CONFIG_IMPORT_LIMITS = {
  /** Servers in one file: a real client configuration has a few dozen. */
  servers: 200,
  /** Problems listed one by one; the rest are counted in a last entry. */
  problems: 50,
  /** One string anywhere in an entry (a command, an argument, a URL, an env value). */
  fieldChars: 64 * 1024,
  /** Characters of an entry's name quoted in a problem. */
  nameChars: 120,
} as const;

/** A server entry as parsed: validated, defaults applied. */
export type ImportedServer = z.output<typeof ServerConfigInput>;

export interface ImportProblem {
  name: string;
  message: string;
}

export interface ImportResult {
  format: 'mcpServers' | 'vscode' | 'switchboard';
  servers: ImportedServer[];
  problems: ImportProblem[];
  /** VS Code `inputs` referenced as ${input:id}: the user must supply them. */
  inputs: { id: string; description?: string; password?: boolean }[];
}

type Entry = Record<string, unknown>;

export function parseServerFile(text: string): ImportResult {
  const head = text.slice(0, 1024);
  if (head.includes('\u0000') || head.includes('\uFFFD')) throw new Error('This is binary data (an image, an archive…), not a JSON server list. Nothing was imported.');
  let document: unknown;
  try {
    document = JSON.parse(stripJsonComments(text));
  } catch (error) {
    const firstLine = text.slice(0, text.indexOf('\n') >>> 0);
    if (/"format"\s*:\s*"switchboard-trace"/.test(firstLine.slice(0, 4096))) {
      throw new Error('This is a Switchboard trace (JSONL), not a server list: open it under Traffic → Import. Nothing was imported.', { cause: error });
    }
    throw new Error(`Not valid JSON: ${clip((error as Error).message, 300)}. Nothing was imported.`, { cause: error });
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) throw new Error('Expected a JSON object with "mcpServers" or "servers". Nothing was imported.');
  const doc = document as Record<string, unknown>;
  if (doc.switchboard !== undefined && Array.isArray(doc.servers)) {
    return collect('switchboard', (doc.servers as unknown[]).map((s, i) => [nameOf(s, i), s]), (raw) => raw as ImportedServer, []);
  }
  const table = (doc.mcpServers ?? doc.servers ?? (doc.mcp as Record<string, unknown> | undefined)?.servers) as Record<string, unknown> | undefined;
  if (!table || typeof table !== 'object' || Array.isArray(table)) {
    throw new Error('Expected "mcpServers" (Claude Desktop, Cursor, Windsurf, .mcp.json) or "servers" (VS Code) to be an object of named servers.');
  }
  const format = doc.mcpServers ? 'mcpServers' : 'vscode';
  const inputs = Array.isArray(doc.inputs)
    ? (doc.inputs as Entry[]).filter((i) => typeof i?.id === 'string').map((i) => ({ id: i.id as string, description: i.description as string | undefined, password: i.password === true }))
    : [];
  return collect(format, Object.entries(table), (raw, name) => fromClientEntry(name, raw as Entry), inputs);
}

function collect(
  format: ImportResult['format'],
  entries: [string, unknown][],
  convert: (raw: unknown, name: string) => unknown,
  inputs: ImportResult['inputs'],
): ImportResult {
  if (entries.length > CONFIG_IMPORT_LIMITS.servers) {
    throw new Error(
      `The file lists ${entries.length.toLocaleString('en-US')} servers; an import takes at most ${CONFIG_IMPORT_LIMITS.servers} (a client configuration has a few dozen). Nothing was imported: split the file, or remove the entries you do not need.`,
    );
  }
  const servers: ImportedServer[] = [];
  const problems: ImportProblem[] = [];
  for (const [name, raw] of entries) {
    try {
      if (!raw || typeof raw !== 'object') throw new Error('entry is not an object');
      const oversize = oversizeField(raw);
      if (oversize) throw new Error(oversize);
      const parsed = ServerConfigInput.safeParse(convert(raw, name));
      if (!parsed.success) throw new Error(formatIssues(parsed.error).map((i) => `${i.path}: ${i.message}`).join('; '));
      servers.push(parsed.data);
    } catch (error) {
      problems.push({ name: clip(name, CONFIG_IMPORT_LIMITS.nameChars), message: clip((error as Error).message, 500) });
    }
  }
  return { format, servers, problems: boundProblems(problems), inputs };
}

/** At most `max` problems, then one entry counting the rest ("and 9,950 more"). */
export function boundProblems(problems: ImportProblem[], max: number = CONFIG_IMPORT_LIMITS.problems): ImportProblem[] {
  if (problems.length <= max) return problems;
  const rest = problems.length - max;
  return [...problems.slice(0, max), { name: `and ${rest.toLocaleString('en-US')} more`, message: `${rest.toLocaleString('en-US')} more entries could not be imported (not listed)` }];
}

/** Why an entry is too big to consider, or undefined: nesting past the carried depth, or a huge string. */
function oversizeField(raw: object): string | undefined {
  if (depthOf(raw, LIMITS.carriedDepth) > LIMITS.carriedDepth) return `entry is nested deeper than ${LIMITS.carriedDepth} levels`;
  const stack: [unknown, string][] = [[raw, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length > CONFIG_IMPORT_LIMITS.fieldChars) {
        return `${path || 'a field'} is ${(value.length / 1024).toFixed(0)} K characters long; a field may have at most ${CONFIG_IMPORT_LIMITS.fieldChars / 1024} K`;
      }
    } else if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (key.length > CONFIG_IMPORT_LIMITS.fieldChars) return `a key is ${(key.length / 1024).toFixed(0)} K characters long; a field may have at most ${CONFIG_IMPORT_LIMITS.fieldChars / 1024} K`;
        stack.push([child, path ? `${path}.${key}` : key]);
      }
    }
  }
  return undefined;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Explicit type/transport/transportType wins; else command → stdio, url → HTTP (auto). */
export function fromClientEntry(name: string, entry: Entry): unknown {
  const declared = String(entry.type ?? entry.transport ?? entry.transportType ?? '').toLowerCase();
  const strings = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : {});
  const base = { name, ...(typeof entry.description === 'string' ? { description: entry.description } : {}) };
  const isStdio = declared === 'stdio' || (!declared && entry.command !== undefined);
  if (isStdio) {
    if (typeof entry.command !== 'string') throw new Error('stdio entry needs a "command" string');
    return {
      ...base,
      target: {
        type: 'stdio',
        command: entry.command,
        args: Array.isArray(entry.args) ? entry.args.map(String) : [],
        env: strings(entry.env),
        ...(typeof entry.cwd === 'string' ? { cwd: entry.cwd } : {}),
      },
    };
  }
  const url = entry.url ?? entry.serverUrl;
  if (typeof url !== 'string') throw new Error(declared ? `"${declared}" entry needs a "url"` : 'entry needs a "command" (stdio) or a "url" (HTTP)');
  const transport = declared === 'sse' ? 'sse' : ['http', 'streamable-http', 'streamablehttp', 'streamable_http'].includes(declared) ? 'streamable-http' : 'auto';
  if (declared && !['sse', 'http', 'streamable-http', 'streamablehttp', 'streamable_http'].includes(declared)) throw new Error(`unknown transport type "${declared}"`);
  return { ...base, target: { type: 'http', url, headers: strings(entry.headers), transport } };
}

function nameOf(value: unknown, index: number): string {
  const name = (value as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name ? name : `#${index + 1}`;
}

/** VS Code's settings allow // and /* *\/ comments and trailing commas. */
function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (ch === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
      i++;
    } else out += ch;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}
