/**
 * `switchboard check` (#16), the core of it: for every server of a config, already connected by
 * the caller — its lists (tools, prompts, resources, templates; the client joins every page), each
 * tool's schemas (schemas.ts), the tool lint (lint.ts), the token cost of its tool list
 * (tokens.ts), and the expectations file (expectations.ts): tools present or absent, latency
 * budgets measured on real calls, a pinned baseline (the drift diff of #13). One report; the CLI
 * turns it into text, JSON, JUnit and an exit code.
 *
 * Everything in the report that came from a server is bounded (names via `shown`, messages cut),
 * and every string in it goes through the connection's redactor (the config's header values,
 * env values, secret URL parameters and client secret never reach the report, JSON or JUnit).
 */
import type { Baseline, InterfaceSnapshot } from '../../../contract';
import type { ServerConnection } from '../connection/server-connection';
import { diffInterfaces } from '../drift/diff';
import { LIST_AREAS, findTraceServer, liveSnapshot, type ListArea } from '../drift/interface';
import type { TraceStore } from '../trace/store';
import type { Expectations, LintLevel, ServerExpectations } from './expectations';
import { LINT_RULES, lintAcrossServers, lintServerTools, shown, type LintFinding, type LintRule, type LintTool } from './lint';
import { checkToolSchema } from './schemas';
import { TOKEN_ENCODING, toolListTokens } from './tokens';

export type CheckOutcome = 'passed' | 'failed' | 'warning' | 'skipped';
export type CheckGroup = 'connect' | 'list' | 'schema' | 'lint' | 'expect' | 'latency' | 'tokens' | 'baseline';

export interface CheckItem {
  /** Stable within a server: `connect`, `list.tools`, `schema.echo`, `lint.missing-description`, `tool-present.echo`, `call.slow_count`, `tokens`, `baseline`. */
  id: string;
  group: CheckGroup;
  name: string;
  verdict: CheckOutcome;
  /** Why: what was found, measured or expected. */
  message: string;
  durationMs?: number;
}

export interface ServerCheck {
  server: string;
  connected: boolean;
  error?: string;
  errorKind?: string;
  counts: Record<ListArea, number>;
  tokens?: { count: number; estimated: boolean; encoding: string };
  items: CheckItem[];
  durationMs: number;
}

export interface CheckTotals {
  passed: number;
  failed: number;
  warning: number;
  skipped: number;
}

export interface CheckReport {
  startedAt: string;
  durationMs: number;
  servers: ServerCheck[];
  /** Checks across the servers of the config (tool names two servers share). */
  crossServer: CheckItem[];
  totals: CheckTotals;
  /** No item failed and every server connected. */
  ok: boolean;
}

export interface CheckInput {
  connections: readonly ServerConnection[];
  /** The trace the connections record into (for list failures and the baseline snapshot). */
  store: TraceStore;
  expectations?: Expectations;
  /** Pinned baselines (baselines.json of the data dir), for `baseline` expectations. */
  baselines?: readonly Baseline[];
  /** Called as each server is done, for progress. */
  onServer?: (check: ServerCheck) => void;
}

const MAX_MESSAGE = 4_000;
const DEFAULT_CALL_TIMEOUT_MS = 30_000;
const DEFAULT_LINT_LEVEL: LintLevel = 'error';

const cut = (text: string, max = MAX_MESSAGE): string => (text.length > max ? `${text.slice(0, max)}… (cut)` : text);
const plural = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

function listLabel(area: ListArea): string {
  return area === 'resourceTemplates' ? 'resource templates' : area;
}

/** The whole check. Never throws for what a server does: every failure is an item. */
export async function runCheck(input: CheckInput): Promise<CheckReport> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const lintLevels = input.expectations?.lint ?? {};
  const servers: ServerCheck[] = [];
  const toolsByServer: { server: string; tools: LintTool[] }[] = [];
  for (const connection of input.connections) {
    const expected = input.expectations?.servers?.[connection.config.name];
    const check = redactCheck(await checkServer(connection, input, expected, lintLevels), (text) => connection.redactor.text(text));
    servers.push(check);
    if (check.connected) toolsByServer.push({ server: check.server, tools: connection.listTools() as LintTool[] });
    input.onServer?.(check);
  }
  const redactAll = (text: string) => input.connections.reduce((t, c) => c.redactor.text(t), text);
  const crossServer = [lintItem('duplicate-name', lintAcrossServers(toolsByServer), lintLevels, 'across servers', toolsByServer.length < 2 ? 'fewer than two servers connected' : undefined)];
  const totals: CheckTotals = { passed: 0, failed: 0, warning: 0, skipped: 0 };
  crossServer[0] = redactItem(crossServer[0]!, redactAll);
  for (const item of [...servers.flatMap((s) => s.items), ...crossServer]) totals[item.verdict]++;
  return { startedAt, durationMs: performance.now() - started, servers, crossServer, totals, ok: totals.failed === 0 && servers.every((s) => s.connected) };
}

function redactItem(item: CheckItem, redact: (text: string) => string): CheckItem {
  return { ...item, id: redact(item.id), name: redact(item.name), message: redact(item.message) };
}

function redactCheck(check: ServerCheck, redact: (text: string) => string): ServerCheck {
  return { ...check, server: redact(check.server), ...(check.error !== undefined ? { error: redact(check.error) } : {}), items: check.items.map((item) => redactItem(item, redact)) };
}

async function checkServer(connection: ServerConnection, input: CheckInput, expected: ServerExpectations | undefined, lintLevels: Partial<Record<LintRule, LintLevel>>): Promise<ServerCheck> {
  const started = performance.now();
  const status = connection.status();
  const name = connection.config.name;
  const counts = { tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 };
  const items: CheckItem[] = [];
  const result = (tokens?: ServerCheck['tokens']): ServerCheck => ({ server: name, connected: status.state === 'connected', ...(status.error ? { error: cut(status.error, 2_000), errorKind: status.errorKind } : {}), counts, tokens, items, durationMs: performance.now() - started });

  if (status.state !== 'connected') {
    items.push({ id: 'connect', group: 'connect', name: 'connect', verdict: 'failed', message: cut(status.error ?? `not connected (${status.state})`) });
    for (const id of expectedIds(expected)) items.push({ ...id, verdict: 'skipped', message: 'not checked: the server did not connect' });
    return result();
  }
  items.push({ id: 'connect', group: 'connect', name: 'connect', verdict: 'passed', message: `connected (${status.era ?? 'unknown'} era, protocol ${status.protocolVersion ?? 'unknown'})` });

  // Lists: a declared list that failed is a failure; an undeclared one is skipped.
  let snapshot: InterfaceSnapshot | undefined;
  try {
    snapshot = liveSnapshot(connection, input.store);
  } catch (error) {
    items.push({ id: 'list', group: 'list', name: 'list everything', verdict: 'failed', message: cut((error as Error).message) });
  }
  const lists = connection.serverLists();
  const capabilities = (connection.serverCapabilities() ?? {}) as Record<string, unknown>;
  for (const spec of LIST_AREAS) {
    counts[spec.area] = lists[spec.area].length;
    const declared = typeof capabilities[spec.capability] === 'object' && capabilities[spec.capability] !== null;
    const id = `list.${spec.area}`;
    const label = `list ${listLabel(spec.area)}`;
    if (!declared) items.push({ id, group: 'list', name: label, verdict: 'skipped', message: `the server does not declare ${spec.capability}` });
    else if (snapshot?.missing.includes(spec.area)) items.push({ id, group: 'list', name: label, verdict: 'failed', message: `${spec.method} failed (declared, but never answered): see the trace` });
    else items.push({ id, group: 'list', name: label, verdict: 'passed', message: `${plural(lists[spec.area].length, spec.area === 'resourceTemplates' ? 'template' : spec.area.replace(/s$/, ''))} listed` });
  }

  // Schemas, one item per tool.
  const tools = lists.tools as unknown as (LintTool & { outputSchema?: unknown })[];
  for (const tool of tools) {
    const label = shown(String(tool.name));
    const input = checkToolSchema(tool.inputSchema, 'inputSchema');
    const output = checkToolSchema(tool.outputSchema, 'outputSchema');
    const verdict: CheckOutcome = input.verdict === 'failed' || output.verdict === 'failed' ? 'failed' : input.verdict === 'warning' || output.verdict === 'warning' ? 'warning' : 'passed';
    items.push({ id: `schema.${label}`, group: 'schema', name: `schemas of ${label}`, verdict, message: cut(`${input.message}; ${output.message}`) });
  }

  // Lint, one item per rule (duplicates across servers are the cross-server suite's).
  const findings = lintServerTools(name, tools);
  for (const rule of LINT_RULES) items.push(lintItem(rule, findings.filter((f) => f.rule === rule), lintLevels));

  // Token cost of the tool list.
  const counted = toolListTokens(tools);
  const tokens = { count: counted.tokens, estimated: counted.estimated, encoding: TOKEN_ENCODING };
  const budget = expected?.maxToolTokens;
  const tokenText = `${counted.estimated ? '~' : ''}${counted.tokens.toLocaleString('en-US')} tokens (${TOKEN_ENCODING}) for ${plural(tools.length, 'tool')}`;
  items.push({ id: 'tokens', group: 'tokens', name: 'tool list token cost', verdict: budget !== undefined && counted.tokens > budget ? 'failed' : 'passed', message: budget === undefined ? `${tokenText} (no budget set)` : `${tokenText}, budget ${budget.toLocaleString('en-US')}${counted.tokens > budget ? `: over by ${(counted.tokens - budget).toLocaleString('en-US')}` : ''}` });

  if (expected) {
    items.push(...presenceItems(expected, lists));
    for (const call of expected.calls ?? []) items.push(await latencyItem(connection, call));
    if (expected.baseline !== undefined && expected.baseline !== false) items.push(baselineItem(name, expected.baseline, input.baselines ?? [], snapshot));
  }
  return result(tokens);
}

/** The expectation items a server that did not connect could not be checked for. */
function expectedIds(expected: ServerExpectations | undefined): Pick<CheckItem, 'id' | 'group' | 'name'>[] {
  if (!expected) return [];
  const ids: Pick<CheckItem, 'id' | 'group' | 'name'>[] = [];
  for (const area of ['tools', 'prompts', 'resources'] as const) {
    for (const n of expected[area]?.present ?? []) ids.push({ id: `${area}-present.${shown(n)}`, group: 'expect', name: `${area.replace(/s$/, '')} ${shown(n)} present` });
    for (const n of expected[area]?.absent ?? []) ids.push({ id: `${area}-absent.${shown(n)}`, group: 'expect', name: `${area.replace(/s$/, '')} ${shown(n)} absent` });
  }
  for (const call of expected.calls ?? []) ids.push({ id: `call.${shown(call.tool)}`, group: 'latency', name: `call ${shown(call.tool)} within ${call.maxMs} ms` });
  if (expected.baseline !== undefined && expected.baseline !== false) ids.push({ id: 'baseline', group: 'baseline', name: 'matches its pinned baseline' });
  return ids;
}

function presenceItems(expected: ServerExpectations, lists: ReturnType<ServerConnection['serverLists']>): CheckItem[] {
  const items: CheckItem[] = [];
  const keyed = {
    tools: new Set(lists.tools.map((t) => t.name)),
    prompts: new Set(lists.prompts.map((p) => p.name)),
    resources: new Set(lists.resources.map((r) => r.uri)),
  };
  for (const area of ['tools', 'prompts', 'resources'] as const) {
    const noun = area.replace(/s$/, '');
    for (const n of expected[area]?.present ?? []) {
      const ok = keyed[area].has(n);
      items.push({ id: `${area}-present.${shown(n)}`, group: 'expect', name: `${noun} ${shown(n)} present`, verdict: ok ? 'passed' : 'failed', message: ok ? `${noun} "${shown(n)}" is listed` : `expected ${noun} "${shown(n)}" is not listed (the server lists ${plural(keyed[area].size, noun)})` });
    }
    for (const n of expected[area]?.absent ?? []) {
      const ok = !keyed[area].has(n);
      items.push({ id: `${area}-absent.${shown(n)}`, group: 'expect', name: `${noun} ${shown(n)} absent`, verdict: ok ? 'passed' : 'failed', message: ok ? `${noun} "${shown(n)}" is not listed, as expected` : `${noun} "${shown(n)}" is listed but expected absent` });
    }
  }
  return items;
}

async function latencyItem(connection: ServerConnection, call: NonNullable<ServerExpectations['calls']>[number]): Promise<CheckItem> {
  const label = shown(call.tool);
  const base = { id: `call.${label}`, group: 'latency' as const, name: `call ${label} within ${call.maxMs} ms` };
  if (!connection.listTools().some((t) => t.name === call.tool)) return { ...base, verdict: 'failed', message: `tool "${label}" is not listed: nothing to call` };
  const timeoutMs = call.timeoutMs ?? Math.max(DEFAULT_CALL_TIMEOUT_MS, call.maxMs);
  const started = performance.now();
  try {
    const result = await connection.callTool(call.tool, call.args ?? {}, { timeoutMs });
    const ms = performance.now() - started;
    if (result.isError === true) return { ...base, verdict: 'failed', durationMs: ms, message: cut(`the tool answered isError after ${ms.toFixed(0)} ms: ${errorText(result)}`, 1_000) };
    const over = ms > call.maxMs;
    return { ...base, verdict: over ? 'failed' : 'passed', durationMs: ms, message: over ? `took ${ms.toFixed(0)} ms, over the budget of ${call.maxMs} ms` : `took ${ms.toFixed(0)} ms (budget ${call.maxMs} ms)` };
  } catch (error) {
    const ms = performance.now() - started;
    return { ...base, verdict: 'failed', durationMs: ms, message: cut(`failed after ${ms.toFixed(0)} ms (timeout ${timeoutMs} ms): ${(error as Error).message}`, 1_000) };
  }
}

function errorText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown }[]) : [];
  const text = content.find((c) => c.type === 'text' && typeof c.text === 'string')?.text as string | undefined;
  return text ? text.slice(0, 300) : 'no text';
}

function baselineItem(server: string, wanted: true | string | { server?: string; failOn?: 'breaking' | 'any' }, baselines: readonly Baseline[], snapshot: InterfaceSnapshot | undefined): CheckItem {
  const base = { id: 'baseline', group: 'baseline' as const, name: 'matches its pinned baseline' };
  const key = typeof wanted === 'string' ? wanted : typeof wanted === 'object' ? (wanted.server ?? server) : server;
  const failOn = typeof wanted === 'object' ? (wanted.failOn ?? 'breaking') : 'breaking';
  const found = findTraceServer(baselines.map((b) => ({ id: b.serverId, name: b.serverName })), key);
  if (!found) return { ...base, verdict: 'failed', message: `no baseline pinned for "${shown(key)}" (pinned: ${baselines.map((b) => shown(b.serverName, 40)).join(', ') || 'none'}): pin one in the app, or check against the right --data-dir` };
  if (!snapshot) return { ...base, verdict: 'failed', message: 'the server\'s interface could not be read, so it was not compared' };
  const baseline = baselines.find((b) => b.serverId === found.id)!;
  const diff = diffInterfaces(baseline.snapshot, snapshot);
  const pinned = new Date(baseline.pinnedAt).toISOString();
  if (diff.same) return { ...base, verdict: 'passed', message: `the same as the baseline pinned ${pinned}` };
  const breaking = diff.changes.filter((c) => c.severity === 'breaking');
  const lines = diff.changes.slice(0, 30).map((c) => `${c.severity}: ${c.message}`);
  const failed = failOn === 'any' || breaking.length > 0;
  return { ...base, verdict: failed ? 'failed' : 'warning', message: cut(`${plural(diff.changes.length, 'change')} since the baseline pinned ${pinned} (${breaking.length} breaking):\n${lines.join('\n')}${diff.changes.length > 30 ? `\n… and ${diff.changes.length - 30} more` : ''}`) };
}

function lintItem(rule: LintRule, findings: readonly LintFinding[], levels: Partial<Record<LintRule, LintLevel>>, scope = '', notApplicable?: string): CheckItem {
  const level = levels[rule] ?? DEFAULT_LINT_LEVEL;
  const base = { id: `lint.${rule}`, group: 'lint' as const, name: `lint: ${rule}${scope ? ` (${scope})` : ''}` };
  if (level === 'off') return { ...base, verdict: 'skipped', message: 'turned off in the expectations file' };
  if (notApplicable) return { ...base, verdict: 'skipped', message: notApplicable };
  if (findings.length === 0) return { ...base, verdict: 'passed', message: 'no findings' };
  const lines = findings.slice(0, 50).map((f) => f.message);
  return { ...base, verdict: level === 'warning' ? 'warning' : 'failed', message: cut(`${plural(findings.length, 'finding')}:\n${lines.join('\n')}${findings.length > 50 ? `\n… and ${findings.length - 50} more` : ''}`) };
}
