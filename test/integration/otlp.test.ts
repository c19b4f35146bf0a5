/**
 * #16 item 5, OTLP: a real session (the everything fixture over Streamable HTTP, with a bearer
 * token, a secret URL parameter and a secret header configured) exported two ways:
 * - `otlpSend` to a real OTLP/HTTP endpoint (node:http in this test) that decodes the protobuf with
 *   the OpenTelemetry proto definitions: span names, kinds, MCP attributes, errors, HTTP exchanges
 *   as events of the right span, one resource per server, the auth header received, no secret in
 *   the bytes; an endpoint that refuses: a clear error that names no header value;
 * - the OTLP/JSON file export (the same stream the download route and save dialog use), checked
 *   against the OTLP JSON mapping (hex ids, decimal-string nanoseconds, integer enums).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../contract';
import { createCore, type Core } from '../../main/core/app';
import { ConfSettingsStore } from '../../main/core/store/conf-settings';
import { call } from '../support/core-calls';
import { attributeMap, decodeOtlp, exportTraceServiceRequest, startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from '../support/otlp-receiver';
import { startFixture, stdioFixtureCommand, type RunningFixture } from '../fixtures/everything/harness';

const SECRETS = { bearer: 'sk-otlp-bearer-9c1e5d7f3a', query: 'otlpquerykey-44b1e2', header: 'otlphdrval-81f0c3' };
const COLLECTOR_TOKEN = 'collector-token-5e7a21b9';

let dir: string;
let http: RunningFixture;
let modern: RunningFixture;
let core: Core;
let receiver: OtlpReceiver;
let serverId: string;

function expectNoSecret(what: string, text: string): void {
  for (const secret of [...Object.values(SECRETS), COLLECTOR_TOKEN]) expect(text.includes(secret), `${what} contains ${secret}`).toBe(false);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-otlp-'));
  http = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  modern = await startFixture({ transport: 'http', era: 'modern' });
  receiver = await startOtlpReceiver();
  core = createCore({ settings: new ConfSettingsStore({ cwd: dir }), carrier: 'browser', version: '9.9.9-test', recordings: false });
  const added = await call(core, 'addServer', {
    name: 'everything',
    target: { type: 'http', url: `${http.url}?api_key=${SECRETS.query}`, headers: { Authorization: `Bearer ${SECRETS.bearer}`, 'X-Custom-Key': SECRETS.header } },
  });
  serverId = (added as ServerStatus).id;
  await call(core, 'connectServer', { id: serverId });
  await call(core, 'callTool', { tool: 'add', serverId, args: { a: 2, b: 3 } });
  // The secret travels in a body too (the tool echoes it back): redacted at the source.
  await call(core, 'callTool', { tool: 'echo', serverId, args: { message: `say ${SECRETS.header}` } });
  await call(core, 'callTool', { tool: 'fail', serverId, args: { message: 'nope' } });
  await core.dispatch('callTool', { tool: 'protocol_error', serverId, args: {} });
  await call(core, 'callTool', { tool: 'slow_count', serverId, args: { steps: 2, delayMs: 10 }, callId: 'count-1' });
  // Two more servers, one resource each: a 2026-07-28 one (no initialize, no session) and one over stdio.
  const stdio = stdioFixtureCommand();
  for (const [name, target] of [
    ['modern', { type: 'http', url: modern.url }],
    ['local', { type: 'stdio', command: stdio.command, args: stdio.args }],
  ] as const) {
    const { id } = (await call(core, 'addServer', { name, target })) as ServerStatus;
    await call(core, 'connectServer', { id });
    await call(core, 'callTool', { tool: 'add', serverId: id, args: { a: 1, b: 1 } });
  }
}, 60_000);

afterAll(async () => {
  await core?.shutdown();
  await http?.close();
  await modern?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

function byName(spans: OtlpSpan[], name: string): OtlpSpan {
  const found = spans.find((s) => s.name === name);
  expect(found, `a span named ${name} among ${spans.map((s) => s.name).join(', ')}`).toBeDefined();
  return found!;
}

describe('OTLP export of a live session', () => {
  it('sends spans a real OTLP/HTTP endpoint decodes with the OpenTelemetry protos', async () => {
    const result = await call(core, 'otlpSend', { source: 'live', url: receiver.url, headers: [{ name: 'Authorization', value: `Bearer ${COLLECTOR_TOKEN}` }] });
    expect(result.requests).toBeGreaterThanOrEqual(1);
    expect(result.endpoint).toBe(`${receiver.url}/v1/traces`);
    const got = receiver.requests.filter((r) => r.decoded);
    expect(got.length).toBe(result.requests);
    expect(got[0]!.headers.authorization).toBe(`Bearer ${COLLECTOR_TOKEN}`);
    const spans = receiver.spans();
    expect(spans.length).toBe(result.spans);

    // One resource per server, service.name its name.
    expect(new Set(spans.map((s) => s.resource['service.name']))).toEqual(new Set(['everything', 'modern', 'local']));
    expect(spans[0]!.resource['switchboard.version']).toBe('9.9.9-test');
    const of = (service: string) => spans.filter((s) => s.resource['service.name'] === service);
    // 2026-07-28: no initialize, no session; the version from the era it negotiated.
    const modernAdd = of('modern').find((s) => s.name === 'tools/call add')!;
    expect(of('modern').map((s) => s.name)).toContain('server/discover');
    expect(of('modern').map((s) => s.name)).not.toContain('initialize');
    expect(attributeMap(modernAdd.attributes)['mcp.session.id']).toBeUndefined();
    expect(attributeMap(modernAdd.attributes)['mcp.protocol.version']).toMatch(/^2026-/);
    // stdio: the pipe transport, the lines as events, no server address.
    const stdioAdd = of('local').find((s) => s.name === 'tools/call add')!;
    expect(attributeMap(stdioAdd.attributes)).toMatchObject({ 'network.transport': 'pipe' });
    expect(attributeMap(stdioAdd.attributes)['server.address']).toBeUndefined();
    expect((stdioAdd.events ?? []).map((e) => e.name)).toEqual(['stdio.write', 'stdio.read']);
    expect(new Set(spans.map((s) => s.traceId)).size).toBeGreaterThanOrEqual(3); // a trace per connection

    const legacy = of('everything');
    const init = byName(legacy, 'initialize');
    const initAttrs = attributeMap(init.attributes);
    expect(init.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(initAttrs).toMatchObject({ 'mcp.method.name': 'initialize', 'network.transport': 'tcp', 'network.protocol.name': 'http', 'server.address': '127.0.0.1' });
    expect(typeof initAttrs['jsonrpc.request.id']).toBe('string');

    const add = byName(legacy, 'tools/call add');
    const addAttrs = attributeMap(add.attributes);
    expect(addAttrs).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add', 'gen_ai.operation.name': 'execute_tool' });
    expect(typeof addAttrs['mcp.session.id']).toBe('string');
    expect(addAttrs['mcp.protocol.version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(BigInt(add.endTimeUnixNano)).toBeGreaterThan(BigInt(add.startTimeUnixNano));
    // Its HTTP exchange: the request, the response, the end, all events of this span, in order.
    const names = (add.events ?? []).map((e) => e.name);
    expect(names[0]).toBe('http.request');
    expect(names).toContain('http.response');
    const request = attributeMap(add.events![0]!.attributes);
    expect(request['http.request.method']).toBe('POST');
    expect(request['http.request.header.authorization']).toEqual(['Bearer [redacted]']);
    // Every event of the add span belongs to its exchange, and no other span holds that exchange.
    const exchange = request['switchboard.exchange'];
    expect((add.events ?? []).every((e) => attributeMap(e.attributes)['switchboard.exchange'] === exchange)).toBe(true);
    const holders = legacy.filter((s) => (s.events ?? []).some((e) => attributeMap(e.attributes)['switchboard.exchange'] === exchange));
    expect(holders.map((s) => s.name)).toEqual(['tools/call add']);

    // Errors: a tool error and a JSON-RPC error, as the convention says.
    const fail = byName(legacy, 'tools/call fail');
    expect(attributeMap(fail.attributes)['error.type']).toBe('tool_error');
    expect(fail.status?.code).toBe(2); // STATUS_CODE_ERROR
    const rpcError = byName(legacy, 'tools/call protocol_error');
    expect(attributeMap(rpcError.attributes)).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(rpcError.status?.code).toBe(2);
    expect(add.status?.code ?? 0).toBe(0);

    // Progress notifications are events of the request they report on.
    const count = byName(legacy, 'tools/call slow_count');
    expect((count.events ?? []).filter((e) => e.name === 'notifications/progress').length).toBe(2);

    // Notifications are short spans; one session, one trace.
    const initialized = byName(legacy, 'notifications/initialized');
    expect(initialized.startTimeUnixNano).toBe(initialized.endTimeUnixNano);
    expect(new Set([init, add, fail, count].map((s) => s.traceId)).size).toBe(1);
    for (const span of spans) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    }

    // No secret anywhere in what the endpoint received, bytes or decoded.
    for (const r of got) {
      expectNoSecret('a protobuf payload', r.raw.toString('latin1'));
      expectNoSecret('a decoded payload', JSON.stringify(r.decoded));
    }
  });

  it('says clearly when the endpoint refuses, without its header values', async () => {
    receiver.failWith(401, `no: Bearer ${COLLECTOR_TOKEN} is not known here`);
    try {
      const reply = await core.dispatch('otlpSend', { source: 'live', url: `${receiver.url}/v1/traces`, headers: [{ name: 'Authorization', value: `Bearer ${COLLECTOR_TOKEN}` }] });
      expect(reply.ok).toBe(false);
      if (reply.ok) return;
      expect(reply.error.message).toContain('HTTP 401');
      expect(reply.error.message).toContain(`${receiver.url}/v1/traces refused the spans`);
      expectNoSecret('the error', reply.error.message);
    } finally {
      receiver.failWith(undefined);
    }
  });

  it('refuses headers that cannot be sent, before sending anything', async () => {
    const before = receiver.requests.length;
    for (const header of [{ name: 'bad name', value: 'x' }, { name: 'X-Key', value: 'line\r\nInjected: yes' }]) {
      const reply = await core.dispatch('otlpSend', { source: 'live', url: receiver.url, headers: [header] });
      expect(reply.ok).toBe(false);
      if (!reply.ok) {
        expect(reply.error.code).toBe('invalid-arguments');
        expect(reply.error.message).toMatch(/Nothing was sent/);
      }
    }
    expect(receiver.requests.length).toBe(before);
  });

  it('exports OTLP/JSON after the OTLP JSON mapping, with no secret in it', async () => {
    const stream = core.traceBulk.exportStream('otlp', 'live');
    expect(stream.filename).toMatch(/\.otlp\.json$/);
    let text = '';
    for await (const chunk of stream.chunks) text += chunk;
    expectNoSecret('the OTLP JSON file', text);
    const parsed = JSON.parse(text) as { resourceSpans: { resource: { attributes: unknown[] }; scopeSpans: { scope: { name: string }; spans: Record<string, unknown>[] }[] }[] };
    expect(parsed.resourceSpans.length).toBeGreaterThan(0);
    const spans = parsed.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    expect(parsed.resourceSpans[0]!.scopeSpans[0]!.scope.name).toBe('switchboard');
    expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(['initialize', 'tools/call add', 'tools/call fail']));
    // The same file read through the proto definitions (ids hex → bytes, the JSON mapping's one
    // departure): every span comes back with its ids, times, kind, status and attribute keys.
    const type = exportTraceServiceRequest();
    const forProto = JSON.parse(text, (key, value: unknown) => (['traceId', 'spanId', 'parentSpanId'].includes(key) && typeof value === 'string' ? Buffer.from(value, 'hex').toString('base64') : value));
    const roundTrip = decodeOtlp(type.encode(type.fromObject(forProto)).finish());
    const back = roundTrip.resourceSpans!.flatMap((rs) => rs.scopeSpans!.flatMap((ss) => ss.spans!));
    const summary = (s: Record<string, unknown>) => ({
      name: s.name,
      traceId: s.traceId,
      spanId: s.spanId,
      parentSpanId: s.parentSpanId || undefined,
      kind: s.kind,
      start: String(s.startTimeUnixNano),
      end: String(s.endTimeUnixNano),
      status: (s.status as { code?: number } | undefined)?.code ?? 0,
      keys: ((s.attributes as { key: string }[] | undefined) ?? []).map((a) => a.key),
      events: ((s.events as unknown[] | undefined) ?? []).length,
    });
    expect(back.map((s) => summary(s as unknown as Record<string, unknown>))).toEqual(spans.map(summary));
    for (const span of spans) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(span.endTimeUnixNano).toMatch(/^\d{19}$/);
      expect(Number.isInteger(span.kind)).toBe(true);
      for (const attr of span.attributes as { key: string; value: Record<string, unknown> }[]) {
        expect(Object.keys(attr.value).length, attr.key).toBe(1);
        if ('intValue' in attr.value) expect(typeof attr.value.intValue === 'number' || typeof attr.value.intValue === 'string').toBe(true);
      }
    }
  });
});
