/**
 * The server info panel's pure parts: "declared vs did" rules, the tracker over a real trace hub
 * (what a server said at initialize, what it did since, our requests it refused), and the
 * renderer's icon and wording rules.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceEventInput } from '../../contract/trace';
import { declares, findMismatches } from '../../main/core/server-info/declared';
import { ServerInfoTracker } from '../../main/core/server-info/tracker';
import { TraceHub } from '../../main/core/trace/hub';
import { describeMismatch, iconVerdict } from '../../renderer/src/features/server-info/model';

let hub: TraceHub | undefined;
afterEach(() => hub?.close());

const seen = (method: string, count = 1) => ({ method, count, firstAt: 1, lastAt: 1, firstSeq: 7 });

describe('declares', () => {
  it('reads presence for a capability and true for a flag', () => {
    const caps = { logging: {}, tools: { listChanged: true }, prompts: { listChanged: false }, resources: {} };
    expect(declares(caps, 'logging')).toBe(true);
    expect(declares(caps, 'tools.listChanged')).toBe(true);
    expect(declares(caps, 'prompts.listChanged')).toBe(false);
    expect(declares(caps, 'resources.subscribe')).toBe(false);
    expect(declares(caps, 'completions')).toBe(false);
    expect(declares(undefined, 'logging')).toBe(false);
    expect(declares({ tools: 'yes' }, 'tools.listChanged')).toBe(false);
  });
});

describe('findMismatches', () => {
  it('lists what the server did without declaring, asked without our declaring, and refused although declared', () => {
    const server = { tools: {}, prompts: {}, resources: { subscribe: true } };
    const client = { elicitation: {} };
    const found = findMismatches(server, client, {
      notifications: [seen('notifications/tools/list_changed', 3), seen('notifications/message'), seen('notifications/resources/updated'), seen('notifications/progress')],
      requests: [seen('sampling/createMessage'), seen('elicitation/create'), seen('ping')],
      refused: [seen('prompts/list'), seen('completion/complete'), seen('made/up')],
    });
    expect(found.map((m) => `${m.kind} ${m.capability} ${m.method}`)).toEqual([
      'undeclared tools.listChanged notifications/tools/list_changed',
      'undeclared logging notifications/message',
      'unasked sampling sampling/createMessage',
      'refused prompts prompts/list',
    ]);
    expect(found[0]).toMatchObject({ count: 3, firstSeq: 7 });
  });

  it('finds nothing when everything done was declared', () => {
    expect(findMismatches({ tools: { listChanged: true }, logging: {} }, {}, { notifications: [seen('notifications/tools/list_changed'), seen('notifications/message')], requests: [seen('ping')], refused: [seen('completion/complete')] })).toEqual([]);
  });
});

describe('ServerInfoTracker', () => {
  const feed = (events: TraceEventInput[]) => {
    for (const e of events) hub!.record(e);
  };

  it('keeps what the server said at initialize and counts what it did since; a new connection starts afresh', () => {
    hub = new TraceHub(undefined);
    const tracker = new ServerInfoTracker(hub);
    expect(tracker.info('s')).toMatchObject({ known: false, mismatches: [] });
    feed([
      { server: 's', channel: 'lifecycle', kind: 'state', dir: 'none', meta: { state: 'connecting' } },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: 'server-discover-probe-1', method: 'server/discover', kind: 'request' } },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 'server-discover-probe-1', kind: 'error', errorCode: -32601 } },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-out', dir: 'out', rpc: { id: 1, method: 'prompts/list', kind: 'request' } },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 1, kind: 'error', errorCode: -32601, errorMessage: 'Method not found' } },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { method: 'notifications/tools/list_changed', kind: 'notification' } },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { method: 'notifications/tools/list_changed', kind: 'notification' } },
      {
        server: 's',
        channel: 'lifecycle',
        kind: 'era',
        dir: 'none',
        meta: {
          era: 'legacy',
          protocolVersion: '2025-11-25',
          transport: 'stdio',
          serverInfo: { name: 'x', title: 'X', version: '1', websiteUrl: 'https://x.example', icons: [{ src: 'data:image/png;base64,AA==' }, { src: 42 }], extra: 'ignored' },
          capabilities: { tools: {}, prompts: {} },
          clientCapabilities: { sampling: {} },
          instructions: 'a'.repeat(70_000),
        },
      },
    ]);
    const info = tracker.info('s');
    expect(info).toMatchObject({ known: true, era: 'legacy', protocolVersion: '2025-11-25', transport: 'stdio', implementation: { name: 'x', title: 'X', version: '1', websiteUrl: 'https://x.example', icons: [{ src: 'data:image/png;base64,AA==' }] } });
    expect(info.instructions).toHaveLength(64 * 1024);
    expect(info.instructionsCut).toBe(70_000 - 64 * 1024);
    expect(info.notifications).toEqual([expect.objectContaining({ method: 'notifications/tools/list_changed', count: 2 })]);
    // the probe's refusal is negotiation: not counted
    expect(info.refused.map((r) => r.method)).toEqual(['prompts/list']);
    expect(info.mismatches.map((m) => `${m.kind}:${m.method}`)).toEqual(['undeclared:notifications/tools/list_changed', 'refused:prompts/list']);

    // "Test connection" runs a throwaway connection under the same id: its events (marked check) leave the live record alone.
    feed([
      { server: 's', channel: 'lifecycle', kind: 'state', dir: 'none', meta: { state: 'connecting', check: true } },
      { server: 's', channel: 'lifecycle', kind: 'era', dir: 'none', meta: { era: 'modern', protocolVersion: '2026-07-28', check: true } },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { method: 'notifications/message', kind: 'notification' }, meta: { check: true } },
    ]);
    expect(tracker.info('s')).toMatchObject({ known: true, era: 'legacy', protocolVersion: '2025-11-25' });
    expect(tracker.info('s').notifications.map((n) => n.method)).toEqual(['notifications/tools/list_changed']);

    feed([{ server: 's', channel: 'lifecycle', kind: 'state', dir: 'none', meta: { state: 'connecting' } }]);
    expect(tracker.info('s')).toMatchObject({ known: false, notifications: [], refused: [] });
  });

  it("an MCP App's bridge messages (channel app) are not the server's doing", () => {
    hub = new TraceHub(undefined);
    const tracker = new ServerInfoTracker(hub);
    const app = { app: { instanceId: 'i1', uri: 'ui://x/app.html', tool: 's__x' } };
    feed([
      { server: 's', channel: 'lifecycle', kind: 'state', dir: 'none', meta: { state: 'connecting' } },
      { server: 's', channel: 'lifecycle', kind: 'era', dir: 'none', meta: { era: 'legacy', protocolVersion: '2025-11-25', capabilities: { tools: {} } } },
      { server: 's', channel: 'app', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 0, method: 'ui/initialize', kind: 'request' }, meta: app },
      { server: 's', channel: 'app', kind: 'jsonrpc-in', dir: 'in', rpc: { method: 'ui/notifications/size-changed', kind: 'notification' }, meta: app },
      { server: 's', channel: 'app', kind: 'jsonrpc-out', dir: 'out', rpc: { id: 5, method: 'ui/resource-teardown', kind: 'request' }, meta: app },
      { server: 's', channel: 'app', kind: 'jsonrpc-in', dir: 'in', rpc: { id: 5, kind: 'error', errorCode: -32601 }, meta: app },
      { server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { method: 'notifications/tools/list_changed', kind: 'notification' } },
    ]);
    const info = tracker.info('s');
    expect(info.requests).toEqual([]);
    expect(info.refused).toEqual([]);
    expect(info.notifications.map((n) => n.method)).toEqual(['notifications/tools/list_changed']);
  });

  it('bounds what a server can make it keep', () => {
    hub = new TraceHub(undefined);
    const tracker = new ServerInfoTracker(hub);
    for (let i = 0; i < 1_000; i++) hub.record({ server: 's', channel: 'stdio', kind: 'jsonrpc-in', dir: 'in', rpc: { method: `x/${i}${'y'.repeat(300)}`, kind: 'notification' } });
    const { notifications } = tracker.info('s');
    expect(notifications.length).toBe(200);
    expect(Math.max(...notifications.map((n) => n.method.length))).toBe(200);
  });
});

describe('renderer rules', () => {
  it('draws data: images only, lists https, refuses the rest', () => {
    expect(iconVerdict({ src: 'data:image/svg+xml;base64,PHN2Zy8+' }).kind).toBe('image');
    expect(iconVerdict({ src: 'data:image/png;base64,AA==' }).kind).toBe('image');
    expect(iconVerdict({ src: 'https://x.example/icon.png' }).kind).toBe('link');
    expect(iconVerdict({ src: 'data:text/html;base64,PHNjcmlwdD4=' }).kind).toBe('refused');
    expect(iconVerdict({ src: 'javascript:alert(1)' }).kind).toBe('refused');
    expect(iconVerdict({ src: 'http://x.example/icon.png' }).kind).toBe('refused');
    expect(iconVerdict({ src: 'https://user:pw@x.example/icon.png' }).kind).toBe('refused');
    expect(iconVerdict({ src: 'not a url' }).kind).toBe('refused');
  });

  it('says each finding in words', () => {
    expect(describeMismatch({ kind: 'undeclared', capability: 'tools.listChanged', method: 'notifications/tools/list_changed', count: 2, firstAt: 0 })).toBe('Sent notifications/tools/list_changed 2 times without declaring tools.listChanged.');
    expect(describeMismatch({ kind: 'refused', capability: 'prompts', method: 'prompts/list', count: 1, firstAt: 0 })).toBe('Declared prompts, but answered prompts/list with "Method not found" (once).');
  });
});
