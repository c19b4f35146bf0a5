/** Argument parsing for the CLI: server selection flags shared by every command. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerConfigInput } from '../../../contract';
import { splitCommandLine } from '../../../contract/command-line';
import { parseServerFile } from '../../core/config/import';
import { terminalSafe } from './terminal';

export const EXIT = { ok: 0, usage: 2, auth: 3, unreachable: 4, toolError: 5, timeout: 6 } as const;

export class UsageError extends Error {
  readonly exitCode = EXIT.usage;
}

export interface ServerFlags {
  config?: string;
  server?: string[];
  url?: string;
  transport?: string;
  header?: string[];
  stdio?: string;
}

export const SERVER_OPTIONS = {
  config: { type: 'string' },
  server: { type: 'string', multiple: true },
  url: { type: 'string' },
  transport: { type: 'string' },
  header: { type: 'string', multiple: true },
  stdio: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  elicitation: { type: 'string' },
  'elicitation-answer': { type: 'string' },
  sampling: { type: 'string' },
  root: { type: 'string', multiple: true },
  'oauth-headless': { type: 'boolean', default: false },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'client-metadata-url': { type: 'string' },
  scope: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

export interface OAuthFlags {
  'client-id'?: string;
  'client-secret'?: string;
  'client-metadata-url'?: string;
  scope?: string;
}

/** --client-id and friends: what a server's `oauth` settings would say, for every HTTP server selected (a config's own settings win). */
export function withOAuthFlags(servers: ServerConfigInput[], flags: OAuthFlags): ServerConfigInput[] {
  const oauth = {
    ...(flags['client-id'] ? { clientId: flags['client-id'] } : {}),
    ...(flags['client-secret'] ? { clientSecret: flags['client-secret'] } : {}),
    ...(flags['client-metadata-url'] ? { clientMetadataUrl: flags['client-metadata-url'] } : {}),
    ...(flags.scope ? { scope: flags.scope } : {}),
  };
  if (flags['client-secret'] && !flags['client-id']) throw new UsageError('--client-secret needs --client-id.');
  if (Object.keys(oauth).length === 0) return servers;
  return servers.map((server) => (server.target.type === 'http' ? { ...server, target: { ...server.target, oauth: { ...oauth, ...server.target.oauth } } } : server));
}

export interface PolicyFlags {
  elicitation?: string;
  'elicitation-answer'?: string;
  sampling?: string;
  root?: string[];
}

/**
 * What a scripted run answers when a server asks: nobody is there to answer a dialog, so the
 * defaults are decline (elicitation) and reject (sampling) — a run never hangs on a question.
 */
export function policiesFromFlags(flags: PolicyFlags): {
  elicitation: 'accept-defaults' | 'decline' | 'cancel' | 'off';
  sampling: 'reject' | 'off';
  roots: { uri: string; name?: string }[];
  elicitationAnswers?: Record<string, unknown>;
} {
  const elicitation = flags.elicitation ?? 'decline';
  if (!['accept-defaults', 'decline', 'cancel', 'off'].includes(elicitation)) throw new UsageError(`--elicitation must be accept-defaults, decline, cancel or off, not "${elicitation}".`);
  const sampling = flags.sampling ?? 'reject';
  if (!['reject', 'off'].includes(sampling)) throw new UsageError(`--sampling must be reject or off, not "${sampling}" (the CLI calls no model).`);
  const elicitationAnswers = flags['elicitation-answer'] === undefined ? undefined : parseJsonObject(flags['elicitation-answer'], '--elicitation-answer');
  if (elicitationAnswers && elicitation !== 'accept-defaults') throw new UsageError('--elicitation-answer needs --elicitation accept-defaults.');
  const roots = (flags.root ?? []).map((path) => ({ uri: /^[a-z][a-z0-9+.-]*:/i.test(path) ? path : pathToFileURL(resolve(path)).href, name: path }));
  return { elicitation: elicitation as never, sampling: sampling as never, roots, elicitationAnswers };
}

/** The servers a command talks to: from --config (optionally narrowed by --server), or one --url / --stdio. */
export function serversFromFlags(flags: ServerFlags): ServerConfigInput[] {
  const direct = [flags.url, flags.stdio].filter(Boolean).length;
  if (direct > 1) throw new UsageError('Use either --url or --stdio, not both.');
  if (flags.config && direct) throw new UsageError('Use --config, or --url/--stdio, not both.');
  if (flags.url) {
    const transport = flags.transport === undefined || flags.transport === 'http' ? 'streamable-http' : flags.transport === 'sse' ? 'sse' : flags.transport === 'auto' ? 'auto' : undefined;
    if (!transport) throw new UsageError(`--transport must be http, sse or auto, not "${flags.transport}".`);
    return [{ name: hostName(flags.url), target: { type: 'http', url: flags.url, headers: parseHeaders(flags.header ?? []), transport } }];
  }
  if (flags.stdio) {
    let words: string[];
    try {
      words = splitCommandLine(flags.stdio);
    } catch (error) {
      throw new UsageError(`--stdio: ${(error as Error).message}`);
    }
    const [command, ...args] = words;
    if (!command) throw new UsageError('--stdio needs a command.');
    return [{ name: command.split('/').pop() ?? 'server', target: { type: 'stdio', command, args } }];
  }
  if (!flags.config) throw new UsageError('Name a server: --config FILE [--server NAME], --url URL, or --stdio "CMD ARGS".');
  let text: string;
  try {
    text = readFileSync(flags.config, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read --config ${flags.config}: ${(error as Error).message}`);
  }
  let parsed;
  try {
    parsed = parseServerFile(text);
  } catch (error) {
    throw new UsageError(`${flags.config}: ${(error as Error).message}`);
  }
  for (const problem of parsed.problems) process.stderr.write(terminalSafe(`warning: ${flags.config}: server "${problem.name}" skipped: ${problem.message}\n`));
  const wanted = flags.server;
  if (!wanted?.length) return parsed.servers;
  const chosen = parsed.servers.filter((s) => wanted.includes(s.name));
  const missing = wanted.filter((name) => !parsed.servers.some((s) => s.name === name));
  if (missing.length) throw new UsageError(`No server named ${missing.map((m) => `"${m}"`).join(', ')} in ${flags.config} (it has: ${parsed.servers.map((s) => s.name).join(', ') || 'none'}).`);
  return chosen;
}

export function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header must look like "Name: value", not "${value}".`);
    headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return headers;
}

/** "500ms", "10s", "2m", "1h", or plain milliseconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new UsageError(`Not a duration: "${value}" (try 500ms, 10s, 2m).`);
  const n = Number(match[1]);
  const unit = match[2] ?? 'ms';
  return Math.round(n * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit]!);
}

export function parseJsonObject(value: string | undefined, flag: string): Record<string, unknown> {
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${flag} must be a JSON object.`);
  return parsed as Record<string, unknown>;
}

function hostName(url: string): string {
  try {
    return new URL(url).hostname || 'server';
  } catch {
    return 'server';
  }
}
