/**
 * The protocol steps, through the app's own client and tracked transports (what the app does is
 * what is judged): `server/discover` pinned to the 2026-07-28 era, `initialize` in the 2025-11-25
 * era, then the first list calls of whichever connected (the app prefers the newer era).
 */
import { Client, SdkErrorCode, type Transport } from '@modelcontextprotocol/client';
import type { ServerTarget } from '../../../contract';
import type { TraceEventInput } from '../../../contract/trace';
import { describeConnectError, httpStatusOf, rpcErrorOf, sdkCodeOf } from '../connection/errors';
import { CLIENT_INFO, MODERN_VERSION } from '../connection/negotiation';
import { closeClient } from '../connection/parts';
import { createTransport, type HttpKind } from '../connection/transport-factory';
import type { Redactor } from '../trace/redact';
import { cut, errorMessageOf, type StepOutcome, type StepRunner } from './steps';

export interface Connected {
  client: Client;
  transport: Transport;
  era: 'modern' | 'legacy';
  kind: HttpKind | undefined;
}

interface EraTry {
  outcome: StepOutcome;
  connected?: Connected;
}

const LEGACY_VERSION = '2025-11-25';

function eraFacts(client: Client, kind: HttpKind | undefined): { label: string; value: string }[] {
  const info = client.getServerVersion();
  const caps = client.getServerCapabilities() ?? {};
  return [
    { label: 'protocol version', value: client.getNegotiatedProtocolVersion() ?? 'unknown' },
    { label: 'server', value: info ? `${info.name} ${info.version}` : 'unnamed' },
    { label: 'capabilities', value: Object.keys(caps).join(', ') || 'none' },
    ...(kind ? [{ label: 'transport', value: kind }] : []),
  ];
}

/** The target the doctor connects: the configured one with the bearer token as a header (the redactor knows it). */
async function connectEra(target: ServerTarget, era: 'modern' | 'legacy', kind: HttpKind | undefined, redactor: Redactor, timeoutMs: number, events: TraceEventInput[]): Promise<Connected> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: era === 'modern' ? { pin: MODERN_VERSION } : 'legacy' } });
  const transport = createTransport(target, kind, {
    server: 'doctor',
    redactor,
    // The exchange's events, for the step's facts only (bounded; nothing is kept after the run).
    record: (event) => {
      if (events.length < 200) events.push(event);
    },
  });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await closeClient(client, transport, false);
    throw error;
  }
  return { client, transport, era, kind };
}

/** The server said no to this era (rather than failing): Method not found, an HTTP 4xx, or no pinned version among those offered. */
function refusedEra(error: unknown): boolean {
  if (sdkCodeOf(error) === SdkErrorCode.EraNegotiationFailed) return true;
  const rpc = rpcErrorOf(error);
  if (rpc && (rpc.code === -32601 || rpc.code === -32602 || rpc.code === -32600)) return true;
  const status = httpStatusOf(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 408 && status !== 429;
}

async function tryModern(target: ServerTarget, redactor: Redactor, timeoutMs: number): Promise<EraTry> {
  const events: TraceEventInput[] = [];
  try {
    const connected = await connectEra(target, 'modern', target.type === 'http' ? 'streamable-http' : undefined, redactor, timeoutMs, events);
    return { connected, outcome: { verdict: 'ok', detail: `The server answers server/discover and speaks the ${connected.client.getNegotiatedProtocolVersion() ?? MODERN_VERSION} era.`, facts: eraFacts(connected.client, connected.kind) } };
  } catch (error) {
    const said = described(target, error);
    if (refusedEra(error)) {
      const why = sdkCodeOf(error) === SdkErrorCode.EraNegotiationFailed ? 'server/discover did not offer it' : `it refused server/discover: ${cut(errorMessageOf(error).replace(/\s+/g, ' '), 300)}`;
      return { outcome: { verdict: 'info', detail: `The server does not speak the ${MODERN_VERSION} era (${why}). Switchboard uses the 2025 era with it.` } };
    }
    return { outcome: { verdict: 'failed', detail: `server/discover failed: ${said}`, hint: hintForProtocolError(error) } };
  }
}

async function tryLegacy(target: ServerTarget, redactor: Redactor, timeoutMs: number, modernOk: boolean): Promise<EraTry> {
  const kinds: (HttpKind | undefined)[] = target.type === 'stdio' ? [undefined] : target.transport === 'auto' ? ['streamable-http', 'sse'] : [target.transport];
  let lastError: unknown;
  const notes: string[] = [];
  for (const kind of kinds) {
    const events: TraceEventInput[] = [];
    try {
      const connected = await connectEra(target, 'legacy', kind, redactor, timeoutMs, events);
      const version = connected.client.getNegotiatedProtocolVersion() ?? 'unknown';
      const older = version !== LEGACY_VERSION;
      return {
        connected,
        outcome: {
          verdict: 'ok',
          detail: `initialize answered: protocol ${version}${kind ? ` over ${kind}` : ''}${older ? ` (an older version than ${LEGACY_VERSION}, which Switchboard accepts)` : ''}.${notes.length ? ` ${notes.join(' ')}` : ''}`,
          facts: eraFacts(connected.client, kind),
        },
      };
    } catch (error) {
      lastError = error;
      if (kind === 'streamable-http' && kinds.length > 1) notes.push(`Streamable HTTP failed first (${cut(errorMessageOf(error).replace(/\s+/g, ' '), 200)}); legacy HTTP+SSE then connected.`);
      if (!(kind === 'streamable-http' && refusedEra(error))) break;
    }
  }
  const said = described(target, lastError);
  if (modernOk && refusedEra(lastError)) return { outcome: { verdict: 'info', detail: `The server speaks only the ${MODERN_VERSION} era: it refused the 2025 initialize (${errorMessageOf(lastError)}). Clients older than the 2026 SDKs cannot use it.` } };
  return { outcome: { verdict: modernOk ? 'warning' : 'failed', detail: `initialize (${LEGACY_VERSION}) failed: ${said}`, hint: hintForProtocolError(lastError) } };
}

/** The app's sentence for a failed connect, without its pointer to the Logs view (the stderr step shows it here). */
function described(target: ServerTarget, error: unknown): string {
  return describeConnectError(target, error).replace(' Its stderr is in Logs.', '');
}

function hintForProtocolError(error: unknown): string | undefined {
  const status = httpStatusOf(error);
  if (status === 401 || status === 403) return 'The server wants authorization: sign in (the server menu\'s Sign in), or give a token with --header "Authorization: Bearer …".';
  if (status === 406) return 'The server answers 406: it expects Accept: application/json, text/event-stream.';
  if (status === 404) return 'Check the URL\'s path: nothing answers MCP there.';
  if (rpcErrorOf(error)) return 'The server answered with a JSON-RPC error: its own logs say why.';
  return undefined;
}

/**
 * Both eras, then the lists (or all three skipped, with why).
 */
export async function protocolSteps(runner: StepRunner, target: ServerTarget, redactor: Redactor, timeoutMs: number, skipWhy?: string): Promise<void> {
  const ids = [
    ['discover', `server/discover (${MODERN_VERSION} era)`],
    ['initialize-2025', `initialize (${LEGACY_VERSION} era)`],
    ['list', 'First list calls'],
  ] as const;
  if (skipWhy) {
    for (const [id, title] of ids) runner.skip(id, title, skipWhy);
    return;
  }
  let modern: Connected | undefined;
  let legacy: Connected | undefined;
  const sseOnly = target.type === 'http' && target.transport === 'sse';
  try {
    if (sseOnly) runner.skip(ids[0][0], ids[0][1], 'The legacy HTTP+SSE transport has no 2026 era.');
    else
      await runner.run(ids[0][0], ids[0][1], timeoutMs + 1_000, async () => {
        const tried = await tryModern(target, redactor, timeoutMs);
        modern = tried.connected;
        return tried.outcome;
      });
    await runner.run(ids[1][0], ids[1][1], 2 * timeoutMs + 1_000, async () => {
      const tried = await tryLegacy(target, redactor, timeoutMs, modern !== undefined);
      legacy = tried.connected;
      return tried.outcome;
    });
    const live = modern ?? legacy;
    if (!live) {
      runner.skip(ids[2][0], ids[2][1], 'No era connected.');
      return;
    }
    await runner.run(ids[2][0], ids[2][1], timeoutMs, () => listCalls(live, timeoutMs));
  } finally {
    for (const c of [modern, legacy]) if (c) await closeClient(c.client, c.transport, true);
  }
}

async function listCalls(live: Connected, timeoutMs: number): Promise<StepOutcome> {
  const caps = live.client.getServerCapabilities() ?? {};
  const facts: { label: string; value: string }[] = [];
  const failures: string[] = [];
  const lists: [keyof typeof caps, string, () => Promise<number>][] = [
    ['tools', 'tools/list', async () => (await live.client.listTools(undefined, { timeout: timeoutMs })).tools.length],
    ['resources', 'resources/list', async () => (await live.client.listResources(undefined, { timeout: timeoutMs })).resources.length],
    ['prompts', 'prompts/list', async () => (await live.client.listPrompts(undefined, { timeout: timeoutMs })).prompts.length],
  ];
  for (const [cap, method, run] of lists) {
    if (!caps[cap]) {
      facts.push({ label: method, value: `not called (the server does not declare ${String(cap)})` });
      continue;
    }
    try {
      facts.push({ label: method, value: `${await run()} item(s)` });
    } catch (error) {
      failures.push(`${method}: ${errorMessageOf(error)}`);
      facts.push({ label: method, value: `failed: ${errorMessageOf(error)}` });
    }
  }
  const era = live.era === 'modern' ? MODERN_VERSION : LEGACY_VERSION;
  if (failures.length > 0) return { verdict: 'failed', detail: `A list the server declares failed (${era} era): ${failures.join('; ')}.`, hint: 'A server must answer the lists of the capabilities it declares; its own logs (stderr) say why it did not.', facts };
  const called = facts.filter((f) => !f.value.startsWith('not called'));
  if (called.length === 0) return { verdict: 'warning', detail: 'The server declares no tools, resources or prompts: there is nothing to list.', facts };
  return { verdict: 'ok', detail: `Listed in the ${era} era: ${called.map((f) => `${f.label} ${f.value}`).join(', ')}.`, facts };
}
