/**
 * The MCP Apps presentation in the renderer, in Node: the Apps view's list and rules
 * (features/apps/view/model.ts, components/app-tool.ts), what the AppHost is fed from a tool's
 * call session (filled by real calls through the core against the everything fixture), the server info panel's extension line, the `app` channel in Traffic's cells and
 * in the Timeline's lanes, and the `mcp-app` source in Logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogLine, type ServerStatus, type ToolEntry } from '../../contract';
import { createApi, type SwitchboardApi } from '../../contract/client';
import type { TraceEvent } from '../../contract/trace';
import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { appOf, isAppTool, visibilityOf } from '../../renderer/src/components/app-tool';
import { EMPTY_TEXT, appToolGroups, hostFeed, matchesQuery, runBlockedReason, serversWithoutApps, type AppTool } from '../../renderer/src/features/apps/view/model';
import { DEFAULT_SOURCES, FilteredLines, LOG_SOURCES, SOURCE_LABEL, type StoredLine } from '../../renderer/src/features/logs/log-filter';
import { APPS_EXTENSION, appsDeclaredLine, appsExtension } from '../../renderer/src/features/server-info/model';
import { TimelineModel } from '../../renderer/src/features/timeline/model';
import { appLabel, directionLabel, isErrorEvent, methodStatus } from '../../renderer/src/features/traffic/format';
import { stdioFixtureCommand } from '../fixtures/everything/harness';
import { call } from '../support/core-calls';
import { EventLog } from '../support/trace-events';

const tool = (name: string, serverId: string, ui?: ToolEntry['ui'], extra: Partial<ToolEntry> = {}): ToolEntry => ({
  name: `${serverId}__${name}`,
  serverId,
  serverName: `Server ${serverId}`,
  originalName: name,
  inputSchema: { type: 'object', properties: {} },
  ...(ui ? { ui } : {}),
  ...extra,
});

const server = (id: string, apps = true): Pick<ServerStatus, 'id' | 'name' | 'config'> => ({ id, name: `Server ${id}`, config: { apps } as ServerStatus['config'] });

describe('which tools are apps, and who may call them', () => {
  it('a tool is an app only with a non-empty ui.resourceUri', () => {
    expect(isAppTool(tool('a', 's', { resourceUri: 'ui://s/a.html' }))).toBe(true);
    expect(isAppTool(tool('b', 's'))).toBe(false);
    expect(isAppTool(tool('c', 's', { resourceUri: '' }))).toBe(false);
  });

  it('visibility: absent or both is both; one value is that one only; an empty list is neither', () => {
    expect(visibilityOf({ ui: { resourceUri: 'ui://x' } })).toBe('both');
    expect(visibilityOf({ ui: { resourceUri: 'ui://x', visibility: ['model', 'app'] } })).toBe('both');
    expect(visibilityOf({ ui: { resourceUri: 'ui://x', visibility: ['app'] } })).toBe('app-only');
    expect(visibilityOf({ ui: { resourceUri: 'ui://x', visibility: ['model'] } })).toBe('model-only');
    expect(visibilityOf({ ui: { resourceUri: 'ui://x', visibility: [] } })).toBe('hidden');
    expect(visibilityOf({})).toBe('both');
  });

  it('an app-only tool and a task-only tool are not run from the form, and say why', () => {
    expect(runBlockedReason({ ui: { resourceUri: 'ui://x' } })).toBeNull();
    expect(runBlockedReason({ ui: { resourceUri: 'ui://x', visibility: ['model'] } })).toBeNull();
    expect(runBlockedReason({ ui: { resourceUri: 'ui://x', visibility: ['app'] } })).toMatch(/app-only.*called by its app/);
    expect(runBlockedReason({ ui: { resourceUri: 'ui://x' }, taskSupport: 'required' })).toMatch(/only as a task/);
  });
});

describe('the Apps list', () => {
  const tools = [
    tool('zeta', 'b', { resourceUri: 'ui://b/zeta.html' }),
    tool('plain', 'b'),
    tool('alpha', 'b', { resourceUri: 'ui://b/alpha.html', visibility: ['app'] }),
    tool('get-time', 'a', { resourceUri: 'ui://get-time/mcp-app.html' }, { title: 'Get the time' }),
    tool('orphan', 'gone', { resourceUri: 'ui://gone/o.html' }),
  ];

  it('groups app tools by server in the sidebar order (unknown servers last), tools by name, non-app tools left out', () => {
    const groups = appToolGroups(tools, [server('a'), server('b')]);
    expect(groups.map((g) => [g.id, g.title, g.items.map((t) => t.originalName)])).toEqual([
      ['a', 'Server a', ['get-time']],
      ['b', 'Server b', ['alpha', 'zeta']],
      ['gone', 'Server gone', ['orphan']],
    ]);
  });

  it('the search matches name, title, resource uri and server name (every term); the sidebar scope keeps one server', () => {
    expect(appToolGroups(tools, [], 'time').flatMap((g) => g.items.map((t) => t.originalName))).toEqual(['get-time']);
    expect(appToolGroups(tools, [], 'ui://b/ ZETA').flatMap((g) => g.items.map((t) => t.originalName))).toEqual(['zeta']);
    expect(appToolGroups(tools, [], 'server b').flatMap((g) => g.items.map((t) => t.originalName))).toEqual(['alpha', 'zeta']);
    expect(appToolGroups(tools, [], 'nothing-like-this')).toEqual([]);
    expect(appToolGroups(tools, [], '', 'b').map((g) => g.id)).toEqual(['b']);
    expect(matchesQuery(tools[3] as AppTool, '   ')).toBe(true);
  });

  it('a server whose MCP Apps setting is off shows no apps, whatever its tools declare', () => {
    expect(appToolGroups(tools, [server('a'), server('b', false)]).map((g) => g.id)).toEqual(['a', 'gone']);
  });

  it('the empty state names the servers that do not declare the extension', () => {
    expect(EMPTY_TEXT).toBe('No connected server offers an app. Servers declare one with _meta.ui.resourceUri on a tool (MCP Apps).');
    expect(serversWithoutApps([server('on'), server('off', false), server('also-off', false)])).toEqual([
      { id: 'off', name: 'Server off' },
      { id: 'also-off', name: 'Server also-off' },
    ]);
  });
});

describe('what the AppHost is fed, from real calls', () => {
  // Sessions shaped as the Tools view's calls-store keeps them (features/tools/calls-store.ts:
  // `running` while in flight, then `outcome`), filled with what the real core answered.
  let core: Core;
  let api: SwitchboardApi;
  let tools: ToolEntry[];

  beforeAll(async () => {
    core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't' });
    api = createApi({
      invoke: (method, args) => core.dispatch(method, args),
      subscribe: (event, listener) => core.events.subscribe((name, payload) => name === event && listener(payload)),
    });
    const { id } = await call(core, 'addServer', { name: 'everything', target: { type: 'stdio', ...stdioFixtureCommand() }, era: 'legacy', pingIntervalSec: 0 });
    expect((await call(core, 'connectServer', { id })).state).toBe('connected');
    tools = await api.listTools();
  }, 30_000);
  afterAll(async () => {
    await core?.shutdown();
  });

  it('partial input while editing, the input while it runs, then input and result; an edit after it is partial input again', async () => {
    const echo = tools.find((t) => t.originalName === 'echo')!;
    expect(hostFeed({ args: { text: 'typing' } })).toEqual({ input: { text: 'typing' }, inputPartial: true });

    const args = { text: 'hello app' };
    expect(hostFeed({ args, running: { args } })).toEqual({ input: args, inputPartial: false });
    const value = await api.callTool({ tool: echo.name, args });
    const done = { args, outcome: { kind: 'result' as const, args, value } };
    const after = hostFeed(done);
    expect(after).toEqual({ input: args, inputPartial: false, result: value.result });
    expect(after.result?.content).toEqual([{ type: 'text', text: 'echo: hello app' }]);
    // The session's own objects: an unchanged session feeds the same references (the host is not fed again for nothing).
    expect(after.result).toBe(value.result);
    expect(after.input).toBe(args);
    // The same arguments again (a form that rebuilt its object): still the finished run.
    expect(hostFeed({ ...done, args: { text: 'hello app' } }).result).toBe(value.result);

    expect(hostFeed({ ...done, args: { text: 'next' } })).toEqual({ input: { text: 'next' }, inputPartial: true });
  });

  it('a cancelled call (and any failed one) feeds cancelled, and no result', async () => {
    const slow = tools.find((t) => t.originalName === 'slow_count')!;
    const args = { steps: 100, delayMs: 200 };
    const callId = 'apps-view-cancel';
    let progressed!: () => void;
    const progress = new Promise<void>((resolve) => (progressed = resolve));
    const off = api.on('callProgress', (p) => p.callId === callId && progressed());
    const running = api.callTool({ tool: slow.name, args, callId }).then(
      () => ({ kind: 'result' as const }),
      (error: Error) => ({ kind: 'error' as const, message: error.message }),
    );
    expect(hostFeed({ args, running: { args } })).toEqual({ input: args, inputPartial: false });
    await progress; // in flight at the server
    off();
    await api.cancelCall({ callId });
    const ended = await running;
    expect(ended.kind).toBe('error');
    expect(hostFeed({ args, outcome: { kind: 'error', args } })).toEqual({ input: args, inputPartial: false, cancelled: true });
  });

  it('no session yet: nothing to feed', () => {
    expect(hostFeed(undefined)).toEqual({});
  });
});

describe('the server info panel: was the extension declared', () => {
  it('reads extensions["io.modelcontextprotocol/ui"] and its mime types, defensively', () => {
    expect(APPS_EXTENSION).toBe('io.modelcontextprotocol/ui');
    expect(appsExtension({ extensions: { [APPS_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } })).toEqual({ declared: true, mimeTypes: ['text/html;profile=mcp-app'] });
    expect(appsExtension({ extensions: { [APPS_EXTENSION]: {} } })).toEqual({ declared: true, mimeTypes: [] });
    expect(appsExtension({ extensions: { [APPS_EXTENSION]: { mimeTypes: [1, 'a'.repeat(500), null] } } })).toEqual({ declared: true, mimeTypes: ['a'.repeat(100)] });
    expect(appsExtension({ extensions: { other: {} } }).declared).toBe(false);
    expect(appsExtension({ extensions: [APPS_EXTENSION] }).declared).toBe(false);
    expect(appsExtension({ extensions: 'io.modelcontextprotocol/ui' }).declared).toBe(false);
    expect(appsExtension({ extensions: { [APPS_EXTENSION]: null } }).declared).toBe(false);
    expect(appsExtension({ extensions: Object.create({ [APPS_EXTENSION]: {} }) }).declared).toBe(false);
    expect(appsExtension(undefined).declared).toBe(false);
  });

  it('says what was declared, or why not', () => {
    const declared = { extensions: { [APPS_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
    expect(appsDeclaredLine(declared, true)).toBe('Switchboard declared the MCP Apps extension (io.modelcontextprotocol/ui, text/html;profile=mcp-app).');
    expect(appsDeclaredLine({ tools: {} }, false)).toMatch(/did not declare .*turned off in this server's settings/);
    expect(appsDeclaredLine({}, true)).toMatch(/did not declare .*reconnect/);
  });
});

/** An `app`-channel event as main's appTrace records it. */
function bridge(log: EventLog, dir: 'in' | 'out', message: { id?: number; method?: string; result?: unknown; error?: { code: number; message: string } }, app: Record<string, unknown> = { instanceId: 'i1', uri: 'ui://get-time/mcp-app.html', tool: 'basic__get-time' }, refused?: string): TraceEvent {
  const kind = message.method ? (message.id !== undefined ? 'request' : 'notification') : message.error ? 'error' : 'result';
  return log.add({
    server: 's',
    channel: 'app',
    kind: refused ? 'error' : dir === 'out' ? 'jsonrpc-out' : 'jsonrpc-in',
    dir,
    rpc: { id: message.id, method: message.method, kind, errorCode: message.error?.code, errorMessage: message.error?.message },
    body: { jsonrpc: '2.0', ...message },
    meta: { app },
    ...(refused ? { text: refused } : {}),
  });
}

describe('Traffic: an app event names its app and shows refusals as errors', () => {
  it('the row names the tool, else the uri; a hostile meta is ignored, never thrown on', () => {
    const log = new EventLog();
    expect(appLabel(bridge(log, 'out', { id: 1, method: 'ui/initialize' }))).toBe('basic__get-time');
    expect(appLabel(bridge(log, 'out', { method: 'ui/notifications/tool-input' }, { instanceId: 'i', uri: 'ui://x/y.html' }))).toBe('ui://x/y.html');
    expect(appLabel(bridge(log, 'out', { method: 'm' }, { tool: 42, uri: ['no'] }))).toBe('app');
    expect(appLabel(log.add({ server: 's', channel: 'app', kind: 'jsonrpc-in', dir: 'in', meta: { app: 'not an object' } }))).toBe('app');
    expect(appLabel(bridge(log, 'out', { method: 'm' }, { tool: 'x'.repeat(1000) }))).toBe(`${'x'.repeat(80)}…`);
    expect(appLabel(log.line('s', 'out', { id: 1, method: 'tools/call' }))).toBeUndefined();
    expect(appOf({ channel: 'app', meta: { app: { instanceId: 'i'.repeat(100) } } })?.instanceId).toHaveLength(64);
  });

  it('a refused message is an error row that says what was refused and why', () => {
    const log = new EventLog();
    const refused = bridge(log, 'in', { id: 7, method: 'tools/call' }, undefined, 'An app may not call tool model-only: it is visible only to the model');
    expect(isErrorEvent(refused)).toBe(true);
    expect(methodStatus(refused).rpc).toBe('tools/call · refused: An app may not call tool model-only: it is visible only to the model');
    const delivered = bridge(log, 'in', { id: 8, method: 'tools/call' });
    expect(isErrorEvent(delivered)).toBe(false);
    expect(methodStatus(delivered).rpc).toBe('tools/call');
    const flood = log.add({ server: 's', channel: 'app', kind: 'error', dir: 'in', text: '1,000 messages dropped (flood)', meta: { app: { tool: 't' } } });
    expect(methodStatus(flood).rpc).toBe('refused: 1,000 messages dropped (flood)');
  });

  it('the detail names the two ends of the bridge', () => {
    const log = new EventLog();
    expect(directionLabel(bridge(log, 'out', { method: 'm' }))).toBe('Switchboard → app');
    expect(directionLabel(bridge(log, 'in', { method: 'm' }))).toBe('app → Switchboard');
    expect(directionLabel(log.line('s', 'out', { id: 1, method: 'ping' }))).toBe('sent →');
  });
});

describe('Timeline: the app channel', () => {
  it('bridge requests pair within their instance, in the app lane, never with the server’s own ids', () => {
    const log = new EventLog();
    log.line('s', 'out', { id: 1, method: 'tools/call' }); // the server's request #1
    bridge(log, 'out', { id: 1, method: 'ui/initialize' }); // instance i1's #1
    bridge(log, 'in', { id: 1, method: 'tools/call' }, { instanceId: 'i2', tool: 'other' }); // instance i2's #1, app → host
    bridge(log, 'in', { id: 1, result: {} }); // i1 answers its ui/initialize
    log.line('s', 'in', { id: 1, result: { content: [] } }); // the server answers #1
    bridge(log, 'out', { id: 1, error: { code: -32601, message: 'no' } }, { instanceId: 'i2', tool: 'other' }); // host answers i2
    bridge(log, 'out', { method: 'ui/notifications/tool-input' }); // a notification: a tick in the app lane only
    const model = new TimelineModel();
    model.append(log.events);

    const lane = (key: string) => model.lanes.get(`s\u0000${key}`);
    expect(lane('rpc-out')!.spans.map((s) => [s.label, s.status])).toEqual([['tools/call', 'ok']]);
    expect(lane('rpc-in')).toBeUndefined();
    expect(lane('notifications')).toBeUndefined();
    const app = lane('app')!;
    expect(app.label).toBe('MCP App bridge');
    expect(app.spans.map((s) => [s.label, s.status])).toEqual([
      ['ui/initialize', 'ok'],
      ['tools/call', 'error'],
    ]);
    expect(app.ticks).toHaveLength(5); // one per bridge message
    expect(lane('errors')!.ticks).toHaveLength(1);
  });

  it('a refused message is an error tick and leaves nothing waiting', () => {
    const log = new EventLog();
    bridge(log, 'in', { id: 9, method: 'tools/call' }, undefined, 'visible only to the model');
    const model = new TimelineModel();
    model.append(log.events);
    expect(model.lanes.get('s\u0000errors')!.ticks).toHaveLength(1);
    expect([...model.lanes.values()].every((l) => l.spans.length === 0 && l.open.size === 0)).toBe(true);
  });
});

describe('Logs: the mcp-app source', () => {
  it('every source the contract knows is offered, and on at first', () => {
    const all = [...LogLine.shape.source.options].sort();
    expect(LOG_SOURCES.map((s) => s.value).sort()).toEqual(all);
    expect([...DEFAULT_SOURCES].sort()).toEqual(all);
    expect(SOURCE_LABEL['mcp-app']).toBe('MCP App');
  });

  it('filtering to mcp-app keeps only the app lines', () => {
    let seq = 0;
    const line = (source: LogLine['source'], text: string): StoredLine => ({ ts: 1, level: 'error', source, text, serverId: 's', seq: ++seq, lower: text.toLowerCase() });
    const store = { lines: [line('server', 'a log'), line('mcp-app', '[get-time] CSP: blocked https://evil.example'), line('stderr', 'x'), line('mcp-app', '[get-time] console.error boom')] };
    const only = new FilteredLines().update(store, { minLevel: 'debug', sources: ['mcp-app'], text: '' });
    expect(only.map((l) => l.text)).toEqual(['[get-time] CSP: blocked https://evil.example', '[get-time] console.error boom']);
    const none = new FilteredLines().update(store, { minLevel: 'debug', sources: ['server', 'stderr', 'protocol', 'app'], text: '' });
    expect(none.some((l) => l.source === 'mcp-app')).toBe(false);
  });
});
