/**
 * Reads the server lists people already have: `mcpServers` (Claude Desktop, Cursor, Windsurf,
 * project .mcp.json), VS Code's `servers` (+ `inputs`), and Switchboard's own export. Each entry
 * is parsed on its own: a broken one is reported by name and the rest still import.
 */
import type { z } from 'zod';
import { ServerConfigInput } from '../../../contract';
import { formatIssues } from '../errors';

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
  let document: unknown;
  try {
    document = JSON.parse(stripJsonComments(text));
  } catch (error) {
    throw new Error(`Not valid JSON: ${(error as Error).message}`);
  }
  if (!document || typeof document !== 'object') throw new Error('Expected a JSON object with "mcpServers" or "servers".');
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
  const servers: ImportedServer[] = [];
  const problems: ImportProblem[] = [];
  for (const [name, raw] of entries) {
    try {
      if (!raw || typeof raw !== 'object') throw new Error('entry is not an object');
      const parsed = ServerConfigInput.safeParse(convert(raw, name));
      if (!parsed.success) throw new Error(formatIssues(parsed.error).map((i) => `${i.path}: ${i.message}`).join('; '));
      servers.push(parsed.data);
    } catch (error) {
      problems.push({ name, message: (error as Error).message });
    }
  }
  return { format, servers, problems, inputs };
}

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
