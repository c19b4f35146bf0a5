/**
 * MCP Apps through the core (`createCore` … `dispatch`), against real servers in their own
 * processes: the published example app servers (`server-basic-vanillajs` over stdio,
 * `server-basic-react` over Streamable HTTP) and the apps fixture (both eras). What is proved:
 * tools' `_meta.ui` reaches the catalog (bad values ignored and logged), the
 * `io.modelcontextprotocol/ui` extension is declared in both eras (and not with `apps: false`),
 * appOpen reads the resource through the traced resources/read and returns the HTML and the exact
 * policy, appTrace records `app`-channel events, appLog writes `mcp-app` lines, an app's call to
 * a tool not visible to apps is refused before anything is sent, and hostile resources fail in
 * words. The sandbox host is a fake collaborator here (the real ones belong to the carriers).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInstance, LogLine } from '../../contract';
import type { TraceEvent } from '../../contract/trace';
import type { AppSandboxHost, SandboxPage } from '../../main/core/apps/sandbox-host';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { call, freePort, until } from '../support/core-calls';
import { appsStdioCommand } from '../fixtures/apps/harness';

const ROOT = join(import.meta.dirname, '../..');
const VANILLA = join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const REACT = join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-react/dist/index.js');
const UI_EXT = 'io.modelcontextprotocol/ui';
const SANDBOX_ORIGIN = 'http://127.0.0.1:47999';
const PROXY = `${SANDBOX_ORIGIN}/sandbox-proxy.js`;
const DEFAULT_POLICY = `default-src 'none'; script-src 'unsafe-inline' ${PROXY}; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'; object-src 'none'; worker-src 'none'`;

/** Stands in for the carrier's sandbox server: remembers what was registered. */
class FakeSandbox implements AppSandboxHost {
  readonly origin = SANDBOX_ORIGIN;
  readonly pages = new Map<string, SandboxPage>();
  register(page: SandboxPage): string {
    this.pages.set(page.instanceId, page);
    return `${this.origin}/app/${page.instanceId}`;
  }
  unregister(instanceId: string): void {
    this.pages.delete(instanceId);
  }
}

function newCore(sandbox?: AppSandboxHost): { core: Core; logs: LogLine[] } {
  const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', appSandbox: sandbox, connectAtStart: false });
  const logs: LogLine[] = [];
  core.events.subscribe((event, payload) => {
    if (event === 'logBatch') logs.push(...(payload as { lines: LogLine[] }).lines);
  });
  return { core, logs };
}

async function addStdio(core: Core, name: string, command: { command: string; args: string[] }, extra: Record<string, unknown> = {}): Promise<string> {
  const { id } = await call(core, 'addServer', { name, target: { type: 'stdio', ...command }, pingIntervalSec: 0, retries: 0, ...extra });
  await call(core, 'connectServer', { id });
  expect(core.connections.get(id)!.status().state).toBe('connected');
  return id;
}

function eventsOf(core: Core, serverId: string, channels?: TraceEvent['channel'][]): TraceEvent[] {
  return core.trace.store.query({ servers: [serverId], ...(channels ? { channels } : {}), limit: 10_000 }).events;
}

/** The client capabilities the server was told: the 2025 initialize, or every 2026 request's `_meta` envelope. */
function declaredCapabilities(core: Core, serverId: string): { era: string; caps: Record<string, unknown>[] } {
  const era = core.connections.get(serverId)!.status().era!;
  const bodies = eventsOf(core, serverId)
    .filter((e) => e.dir === 'out' && (e.kind === 'jsonrpc-out' || e.kind === 'http-request'))
    .map((e) => e.body as { method?: string; params?: { capabilities?: Record<string, unknown>; _meta?: Record<string, Record<string, unknown>> } } | undefined)
    .filter((b) => b !== undefined && typeof b === 'object');
  const caps =
    era === 'legacy'
      ? bodies.filter((b) => b!.method === 'initialize').map((b) => b!.params!.capabilities!)
      : bodies.filter((b) => b!.params?._meta?.['io.modelcontextprotocol/clientCapabilities']).map((b) => b!.params!._meta!['io.modelcontextprotocol/clientCapabilities']!);
  return { era, caps };
}

async function failure(core: Core, method: Parameters<Core['dispatch']>[0], args: unknown): Promise<{ code: string; message: string }> {
  const envelope = await core.dispatch(method, args);
  if (envelope.ok) throw new Error(`${method} succeeded, a failure was expected`);
  return envelope.error;
}

describe('the published example app servers', () => {
  const sandbox = new FakeSandbox();
  let core: Core;
  let react: ChildProcess | undefined;
  let vanillaId: string;
  let reactId: string;

  beforeAll(async () => {
    ({ core } = newCore(sandbox));
    vanillaId = await addStdio(core, 'vanilla', { command: process.execPath, args: [VANILLA, '--stdio'] });
    const port = await freePort();
    // The package binds its own choice of interface; Switchboard reaches it on loopback only.
    react = spawn(process.execPath, [REACT], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    react.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await until('the react server listening', () => (out.includes('listening') ? true : undefined));
    const { id } = await call(core, 'addServer', { name: 'react', target: { type: 'http', url: `http://127.0.0.1:${port}/mcp` }, pingIntervalSec: 0, retries: 0 });
    reactId = id;
    await call(core, 'connectServer', { id });
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
    react?.kill('SIGTERM');
  });

  it('get-time carries its ui:// resource into the catalog (and so into `switchboard tools --json`)', async () => {
    for (const [serverId, slug] of [
      [vanillaId, 'vanilla'],
      [reactId, 'react'],
    ] as const) {
      const tools = await call(core, 'listTools', { serverId });
      expect(tools.find((t) => t.originalName === 'get-time')).toMatchObject({ name: `${slug}__get-time`, ui: { resourceUri: 'ui://get-time/mcp-app.html' } });
    }
  });

  it('declares the ui extension to both (in whichever era each spoke)', () => {
    for (const serverId of [vanillaId, reactId]) {
      const { caps } = declaredCapabilities(core, serverId);
      expect(caps.length).toBeGreaterThan(0);
      for (const c of caps) expect(c.extensions).toEqual({ [UI_EXT]: { mimeTypes: ['text/html;profile=mcp-app'] } });
    }
  });

  it.each(['vanilla', 'react'] as const)('appOpen (%s): the HTML through the traced resources/read, the default policy, a registered sandbox page', async (which) => {
    const serverId = which === 'vanilla' ? vanillaId : reactId;
    const app: AppInstance = await call(core, 'appOpen', { serverId, uri: 'ui://get-time/mcp-app.html', tool: `${which}__get-time` });
    expect(app).toMatchObject({ serverId, uri: 'ui://get-time/mcp-app.html', tool: `${which}__get-time`, mimeType: 'text/html;profile=mcp-app', sandboxOrigin: SANDBOX_ORIGIN, csp: DEFAULT_POLICY, refused: [], permissions: [], granted: [], notes: [] });
    expect(app.html).toMatch(/^<!DOCTYPE html>/i);
    expect(app.html.length).toBeGreaterThan(10_000);
    expect(app.sandboxUrl).toBe(`${SANDBOX_ORIGIN}/app/${app.instanceId}`);
    expect(sandbox.pages.get(app.instanceId)).toEqual({ instanceId: app.instanceId, csp: DEFAULT_POLICY, allow: [] });
    const read = await until('the resources/read request event', () => (app.traceSeq !== undefined ? core.trace.store.get(app.traceSeq) : undefined));
    expect(read).toMatchObject({ server: serverId, dir: 'out', rpc: { method: 'resources/read', kind: 'request' } });
    expect(JSON.stringify(read.body)).toContain('ui://get-time/mcp-app.html');
    expect(await call(core, 'appClose', { instanceId: app.instanceId })).toEqual({ closed: true });
    expect(sandbox.pages.has(app.instanceId)).toBe(false);
    expect(await call(core, 'appClose', { instanceId: app.instanceId })).toEqual({ closed: false });
  });

  it("an app's tools/call to get-time goes through (no visibility: visible to apps) and appears in the trace as a tools/call", async () => {
    const app = await call(core, 'appOpen', { serverId: vanillaId, uri: 'ui://get-time/mcp-app.html', tool: 'vanilla__get-time' });
    const result = await call(core, 'callTool', { tool: 'get-time', serverId: vanillaId, args: {}, fromApp: { instanceId: app.instanceId } });
    expect(result.result.structuredContent).toMatchObject({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(core.trace.store.get(result.traceSeq!)).toMatchObject({ rpc: { method: 'tools/call' } });
  });
});

describe('the apps fixture', () => {
  const sandbox = new FakeSandbox();
  let core: Core;
  let logs: LogLine[];
  let id: string;
  let basic: AppInstance;

  beforeAll(async () => {
    ({ core, logs } = newCore(sandbox));
    id = await addStdio(core, 'apps', appsStdioCommand(['--edge-cases']));
    basic = await call(core, 'appOpen', { serverId: id, uri: 'ui://fixture/basic.html', tool: 'apps__show-basic' });
  }, 60_000);

  afterAll(async () => {
    await core?.shutdown();
  });

  it('the catalog: show-basic has its UI; the visibility-only tools carry only their visibility (so they can be marked); bad values are ignored and logged once, naming the tool', async () => {
    const tools = await call(core, 'listTools', { serverId: id });
    const ui = Object.fromEntries(tools.map((t) => [t.originalName, t.ui]));
    expect(ui['show-basic']).toEqual({ resourceUri: 'ui://fixture/basic.html' });
    expect(ui['echo']).toBeUndefined();
    expect(ui['model-only']).toEqual({ visibility: ['model'] });
    expect(ui['app-only']).toEqual({ visibility: ['app'] });
    expect(ui['bad-uri']).toBeUndefined();
    expect(ui['flat-uri']).toEqual({ resourceUri: 'ui://fixture/basic.html' });
    expect(ui['odd-visibility']).toEqual({ resourceUri: 'ui://fixture/basic.html', visibility: ['model'] });
    const protocol = await until('the protocol lines', () => {
      const lines = logs.filter((l) => l.source === 'protocol' && l.serverId === id);
      return lines.length >= 2 ? lines : undefined;
    });
    expect(protocol.map((l) => l.text)).toEqual([
      'apps: tools/list: tool "bad-uri": _meta.ui.resourceUri "https://example.com/app.html" does not start with ui://. Switchboard ignores that part of its UI metadata.',
      'apps: tools/list: tool "odd-visibility": _meta.ui.visibility has 1 value other than "model" and "app" (ignored). Switchboard ignores that part of its UI metadata.',
    ]);
  });

  it('appOpen: the basic app, its HTML as the server sent it, the default policy', () => {
    expect(basic).toMatchObject({ serverId: id, serverName: 'apps', tool: 'apps__show-basic', csp: DEFAULT_POLICY, refused: [], notes: [] });
    expect(basic.html).toContain('<p id="status">basic app</p>');
  });

  it('a blob resource is decoded as UTF-8; _meta.ui from the resources/list entry when the content has none', async () => {
    const blob = await call(core, 'appOpen', { serverId: id, uri: 'ui://fixture/blob.html' });
    expect(blob.html).toBe(basic.html);
    const listed = await call(core, 'appOpen', { serverId: id, uri: 'ui://fixture/listed-meta.html', grant: ['camera', 'microphone'] });
    expect(listed.csp).toBe(DEFAULT_POLICY.replace("connect-src 'none'", 'connect-src https://api.example.com'));
    expect(listed).toMatchObject({ declared: { connectDomains: ['https://api.example.com'] }, permissions: ['camera'], granted: ['camera'], prefersBorder: false });
    expect(listed.notes).toEqual(['The content item has no _meta.ui: its policy and permissions come from the resources/list entry.']);
    expect(sandbox.pages.get(listed.instanceId)!.allow).toEqual(['camera']);
  });

  it("what the resource declared: the policy from what passed, refusals listed, permissions granted only as consented, the domain not honoured (a note says why)", async () => {
    const app = await call(core, 'appOpen', { serverId: id, uri: 'ui://fixture/declared.html', grant: ['clipboardWrite', 'camera'] });
    const cdn = 'https://cdn.example.com';
    expect(app.csp).toBe(
      `default-src 'none'; script-src 'unsafe-inline' ${PROXY} ${cdn}; style-src 'unsafe-inline' ${cdn}; img-src data: blob: ${cdn}; font-src data: ${cdn}; media-src data: blob: ${cdn}; ` +
        "connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'; object-src 'none'; worker-src 'none'",
    );
    expect(app.refused).toEqual([
      { directive: 'script-src, style-src, img-src, font-src, media-src', value: "'unsafe-eval'", reason: "it is a CSP keyword ('unsafe-eval'), not an origin; keywords are Switchboard's to choose" },
      { directive: 'frame-src', value: '*', reason: 'frameDomains must be a list of origins; it was a string, so nothing of it was used' },
    ]);
    expect(app).toMatchObject({ declared: { resourceDomains: [cdn, "'unsafe-eval'"] }, permissions: ['microphone', 'clipboardWrite'], granted: ['clipboardWrite'], prefersBorder: true, domain: 'a904794854a047f6.example-content.com' });
    expect(sandbox.pages.get(app.instanceId)!.allow).toEqual(['clipboard-write']);
    expect(app.notes).toHaveLength(1);
    expect(app.notes[0]).toMatch(/^The resource asks for a dedicated origin \(domain "a904794854a047f6\.example-content\.com"\)\. Switchboard does not honour it/);
  });

  it('hostile resources fail in words: not an app, too large, not UTF-8, not ui://, unknown to the server', async () => {
    expect((await failure(core, 'appOpen', { serverId: id, uri: 'ui://fixture/plain.html' })).message).toBe('"ui://fixture/plain.html" is not an MCP App: it came as "text/html", and Switchboard runs only text/html;profile=mcp-app.');
    expect((await failure(core, 'appOpen', { serverId: id, uri: 'ui://fixture/huge.html' })).message).toBe('"ui://fixture/huge.html" is too large to run: 6.0 MiB of HTML, and Switchboard runs at most 5 MiB.');
    expect((await failure(core, 'appOpen', { serverId: id, uri: 'ui://fixture/bad-utf8.html' })).message).toBe('"ui://fixture/bad-utf8.html" cannot open as an app: its blob is not UTF-8 text.');
    expect(await failure(core, 'appOpen', { serverId: id, uri: 'https://example.com/app.html' })).toEqual({ code: 'invalid-arguments', message: '"https://example.com/app.html" is not a ui:// resource; an MCP App\'s UI always is.' });
    expect((await failure(core, 'appOpen', { serverId: id, uri: 'ui://fixture/nope.html' })).message).toMatch(/^apps: resources\/read failed: .*ui:\/\/fixture\/nope\.html/);
    expect((await failure(core, 'appOpen', { serverId: 'no-such-server', uri: 'ui://fixture/basic.html' })).code).toBe('not-found');
  });

  it('appTrace: each bridge message is one `app` event with the app identity, found by traceQuery({channels: ["app"]})', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { appInfo: { name: 'basic', version: '1.0.0' }, appCapabilities: {}, protocolVersion: '2026-01-26' } };
    const answer = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2026-01-26' } };
    const flood = { jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { width: 1, height: 1 } };
    const recorded = await call(core, 'appTrace', {
      instanceId: basic.instanceId,
      messages: [
        { dir: 'in', ts: Date.now(), message: init },
        { dir: 'out', ts: Date.now(), message: answer },
        { dir: 'in', ts: Date.now(), message: flood, refused: 'flood: more than 200 messages a second' },
      ],
    });
    expect(recorded).toEqual({ recorded: 3 });
    const page = await call(core, 'traceQuery', { servers: [id], channels: ['app'] });
    const mine = page.events.filter((e) => (e.meta as { app?: { instanceId?: string } }).app?.instanceId === basic.instanceId);
    expect(mine.map((e) => [e.kind, e.dir, e.rpc?.method ?? e.rpc?.kind, e.text])).toEqual([
      ['jsonrpc-in', 'in', 'ui/initialize', undefined],
      ['jsonrpc-out', 'out', 'result', undefined],
      ['error', 'in', 'ui/notifications/size-changed', 'flood: more than 200 messages a second'],
    ]);
    const full = core.trace.store.get(mine[0]!.seq)!;
    expect(full).toMatchObject({ channel: 'app', server: id, body: init, meta: { app: { instanceId: basic.instanceId, uri: 'ui://fixture/basic.html', tool: 'apps__show-basic' } } });
    expect(full.bytes).toBe(JSON.stringify(init).length);
    expect(await failure(core, 'appTrace', { instanceId: 'not-open', messages: [] })).toMatchObject({ code: 'not-found' });
  });

  it("the app's JSON-RPC ids are its own: they never pair with the server's requests, nor count as what the server sent", async () => {
    const engine = core.trace.snapshots;
    const paired: [number, number][] = [];
    const stop = engine.onPaired((requestSeq, response) => paired.push([requestSeq, response.seq]));
    const transportErrors = () => engine.snapshot(id, 1_000)!.buckets.reduce((n, b) => n + b.errors.transport, 0);
    const before = transportErrors();
    try {
      // A server request in flight (id 9001 out), then the app answers its own id 9001 and sends a request (in).
      const serverRequest = core.trace.store.append({ server: id, channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: 9001, method: 'tools/call', kind: 'request' } });
      await call(core, 'appTrace', {
        instanceId: basic.instanceId,
        messages: [
          { dir: 'in', ts: Date.now(), message: { jsonrpc: '2.0', id: 9001, result: {} } },
          { dir: 'in', ts: Date.now(), message: { jsonrpc: '2.0', id: 9002, method: 'sampling/createMessage', params: {} } },
          { dir: 'in', ts: Date.now(), message: { jsonrpc: '2.0', id: 9003, method: 'tools/call', params: { name: 'model-only' } }, refused: 'not visible to apps' },
        ],
      });
      expect(paired).toEqual([]);
      // A refused message is the app channel's error, not a transport failure.
      expect(transportErrors()).toBe(before);
      expect(engine.snapshot(id, 1)!.channels.app!.errors).toBeGreaterThan(0);
      // The request the host answers later is in flight; the refused one never waits.
      expect(engine.snapshot(id, 1)!.inFlight.filter((r) => r.channel === 'app')).toEqual([expect.objectContaining({ id: '9002', method: 'sampling/createMessage' })]);
      const answer = core.trace.store.append({ server: id, channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 9001, kind: 'result' } });
      expect(paired).toEqual([[serverRequest.seq, answer.seq]]);
      const info = await call(core, 'serverInfo', { id });
      expect(info.requests.map((r) => r.method)).not.toContain('sampling/createMessage');
      expect(info.mismatches.map((m) => m.method)).not.toContain('sampling/createMessage');
    } finally {
      stop();
    }
  });

  it('appLog: mcp-app lines with the server id, the app named, control characters made inert', async () => {
    const written = await call(core, 'appLog', {
      instanceId: basic.instanceId,
      entries: [
        { ts: Date.now(), level: 'error', kind: 'console', text: 'Uncaught TypeError: x is undefined\u001b[31m\u202e' },
        { ts: Date.now(), level: 'warning', kind: 'csp', text: "Refused to connect to 'https://evil.example' (connect-src)" },
      ],
    });
    expect(written).toEqual({ written: 2 });
    const lines = await until('the mcp-app lines', () => {
      const found = logs.filter((l) => l.source === 'mcp-app');
      return found.length >= 2 ? found : undefined;
    });
    expect(lines.map((l) => [l.serverId, l.level, l.text])).toEqual([
      [id, 'error', '[app apps__show-basic] console: Uncaught TypeError: x is undefined\ufffd[31m\ufffd'],
      [id, 'warning', "[app apps__show-basic] CSP violation: Refused to connect to 'https://evil.example' (connect-src)"],
    ]);
  });

  it('fromApp: model-only is refused before anything is sent (an `app` error event says why); echo and app-only go through', async () => {
    const before = eventsOf(core, id).filter((e) => e.dir === 'out' && e.rpc?.method === 'tools/call').length;
    const refused = await failure(core, 'callTool', { tool: 'model-only', serverId: id, args: {}, fromApp: { instanceId: basic.instanceId } });
    expect(refused).toEqual({ code: 'conflict', message: 'An app may not call tool "model-only": it is visible only to the model (_meta.ui.visibility ["model"]).' });
    const errors = eventsOf(core, id, ['app']).filter((e) => e.kind === 'error' && e.text?.includes('model-only'));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.meta).toMatchObject({ app: { instanceId: basic.instanceId }, refusedTool: 'apps__model-only' });
    expect(eventsOf(core, id).filter((e) => e.dir === 'out' && e.rpc?.method === 'tools/call')).toHaveLength(before);

    const echo = await call(core, 'callTool', { tool: 'echo', serverId: id, args: { text: 'hi' }, fromApp: { instanceId: basic.instanceId } });
    expect(echo.result.content).toEqual([{ type: 'text', text: 'hi' }]);
    const appOnly = await call(core, 'callTool', { tool: 'apps__app-only', args: {}, fromApp: { instanceId: basic.instanceId } });
    expect(appOnly.result.content).toEqual([{ type: 'text', text: 'app-only was called' }]);
    // The same tool without fromApp (a person calling it) is not refused.
    expect((await call(core, 'callTool', { tool: 'model-only', serverId: id, args: {} })).result.content).toEqual([{ type: 'text', text: 'model-only was called' }]);
    expect(eventsOf(core, id).filter((e) => e.dir === 'out' && e.rpc?.method === 'tools/call')).toHaveLength(before + 3);
    expect(await failure(core, 'callTool', { tool: 'echo', serverId: id, args: { text: 'x' }, fromApp: { instanceId: 'closed-long-ago' } })).toMatchObject({ code: 'not-found' });
  });
});

describe('the extension in both eras (apps fixture), and without it', () => {
  it.each([
    ['legacy', true],
    ['modern', true],
    ['legacy', false],
    ['modern', false],
  ] as const)('era %s, apps %s', async (era, apps) => {
    const { core } = newCore(new FakeSandbox());
    try {
      const id = await addStdio(core, `apps ${era}`, appsStdioCommand(), { era, apps });
      await call(core, 'listTools', { serverId: id });
      const declared = declaredCapabilities(core, id);
      expect(declared.era).toBe(era);
      expect(declared.caps.length).toBeGreaterThan(0);
      for (const c of declared.caps) {
        if (apps) expect(c.extensions).toEqual({ [UI_EXT]: { mimeTypes: ['text/html;profile=mcp-app'] } });
        else expect(c.extensions).toBeUndefined();
      }
      if (era === 'modern') {
        // The 2026 discover probe carries them too (it is one of the envelopes checked above).
        const probe = eventsOf(core, id).find((e) => e.dir === 'out' && e.rpc?.method === 'server/discover');
        const probed = (probe?.body as { params: { _meta: Record<string, { extensions?: unknown }> } }).params._meta['io.modelcontextprotocol/clientCapabilities']!;
        expect(probed.extensions).toEqual(apps ? { [UI_EXT]: { mimeTypes: ['text/html;profile=mcp-app'] } } : undefined);
      }
    } finally {
      await core.shutdown();
    }
  }, 30_000);
});

describe('the CLI (built: npx electron-vite build)', () => {
  it('`switchboard tools --json` shows a tool\'s ui', async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [join(ROOT, 'bin/switchboard.mjs'), 'tools', '--stdio', `${process.execPath} ${VANILLA} --stdio`, '--json'], { cwd: ROOT, timeout: 60_000 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)));
    });
    const { tools } = JSON.parse(stdout) as { tools: { originalName: string; ui?: unknown }[] };
    expect(tools.find((t) => t.originalName === 'get-time')?.ui).toEqual({ resourceUri: 'ui://get-time/mcp-app.html' });
  }, 60_000);
});

describe('without a sandbox host', () => {
  it('appOpen says MCP Apps cannot open here', async () => {
    const { core } = newCore(undefined);
    try {
      const id = await addStdio(core, 'apps', appsStdioCommand());
      expect(await failure(core, 'appOpen', { serverId: id, uri: 'ui://fixture/basic.html' })).toEqual({ code: 'conflict', message: 'MCP Apps cannot open here: this carrier has no sandbox origin.' });
    } finally {
      await core.shutdown();
    }
  }, 30_000);
});
