import { createCore, type Core } from '../../main/core/app';
import { MemorySettingsStore } from '../../main/core/store/settings';
import { startFlaky } from '../fixtures/flaky-server/harness';
import type { ServerStatus } from '../../contract';

const scenario = process.argv[2]!;
const era = (process.argv[3] ?? 'legacy') as 'legacy' | 'modern';

const core = createCore({ settings: new MemorySettingsStore(), carrier: 'browser', version: 't', backoffBaseMs: 50 });
const lab = await startFlaky({ era: 'both', name: 'lab' });
const states: string[] = [];
core.events.subscribe((e, p) => { if (e === 'serverState') { const s = p as ServerStatus; states.push(`${s.state}${s.attempt ? '#' + s.attempt : ''}${s.errorKind ? '(' + s.errorKind + ')' : ''}`); } });
const add = await core.dispatch('addServer', { name: 'lab', target: { type: 'http', url: lab.url }, era, retries: 2, requestTimeoutSec: 3, connectTimeoutSec: 3, pingIntervalSec: 0 });
const id = (add as any).result.id;
const conn = core.connections.get(id)!;
const t0 = Date.now();
const call = async (tool: string, args: any = { text: 'x' }, timeoutMs?: number) => {
  const t = Date.now();
  const r = await core.dispatch('callTool', { tool, args, ...(timeoutMs ? { timeoutMs } : {}) });
  console.log('CALL', tool, Date.now() - t, 'ms', r.ok ? JSON.stringify((r as any).result.result).slice(0, 150) : 'ERR ' + (r as any).error.message);
  return r;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dump = (filter?: (e: any) => boolean) => {
  for (const e of core.trace.store.all()) {
    if (e.server !== id) continue;
    if (filter && !filter(e)) continue;
    console.log(e.seq, e.channel, e.kind, e.exchange ?? '', e.rpc ? `${e.rpc.kind}:${e.rpc.method ?? ''}#${e.rpc.id ?? ''}` : '', e.http ? JSON.stringify({ m: e.http.method, s: e.http.status, end: e.http.end, ct: e.http.contentType }) : '', e.sse ? JSON.stringify(e.sse) : '', (e.text ?? '').slice(0, 200), e.truncated ? 'TRUNC' : '', e.bytes ?? '');
  }
};
try {
  switch (scenario) {
    case 'connect500': await lab.setFaults({ type: 'http-error', status: 500, times: 2 }); break;
    case 'connect503': await lab.setFaults({ type: 'http-error', status: 503, retryAfter: 2, times: 2 }); break;
    case 'connect401': await lab.setFaults({ type: 'unauthorized' }); break;
    case 'connect403': await lab.setFaults({ type: 'forbidden' }); break;
    case 'connecthtml': await lab.setFaults({ type: 'malformed', variant: 'wrong-content-type', times: 1 }); break;
  }
  await core.dispatch('connectServer', { id });
  console.log('after connect', Date.now() - t0, conn.snapshot().state, conn.snapshot().error);
  await sleep(500);
  console.log('state', conn.snapshot().state, conn.snapshot().errorKind, conn.snapshot().error);
  const F = (f: any) => lab.setFaults(f);
  switch (scenario) {
    case 'call500': await F({ type: 'http-error', status: 500, method: 'tools/call', times: 1 }); await call('lab__echo'); await call('lab__echo'); break;
    case 'call503': await F({ type: 'http-error', status: 503, retryAfter: 2, method: 'tools/call', times: 1, body: 'Service Unavailable' }); await call('lab__echo'); await call('lab__echo'); break;
    case 'reset': await F({ type: 'reset', method: 'tools/call', times: 1 }); await call('lab__echo'); await call('lab__echo'); break;
    case 'resetbh': await F({ type: 'reset', phase: 'before-headers', method: 'tools/call', times: 1 }); await call('lab__echo'); await call('lab__echo'); break;
    case 'cut': await F({ type: 'sse-cut', method: 'tools/call', retryMs: 100, times: 1 }); await call('lab__echo'); await call('lab__echo'); break;
    case 'cutnoid': await F({ type: 'sse-cut', method: 'tools/call', eventIds: false, times: 1 }); await call('lab__echo', undefined, 1500); await call('lab__echo'); break;
    case 'cutreset': await F({ type: 'sse-cut', method: 'tools/call', eventIds: false, partial: true, how: 'reset', times: 1 }); await call('lab__echo', undefined, 1500); await call('lab__echo'); break;
    case 'u401': await F({ type: 'unauthorized', after: 2 }); await call('lab__echo'); await call('lab__echo'); await call('lab__echo'); await sleep(300); console.log('state', conn.snapshot()); break;
    case 'f403': await F({ type: 'forbidden', method: 'tools/call' }); await call('lab__echo'); await sleep(300); console.log('state', conn.snapshot().state); break;
    case 'badjson': await F({ type: 'malformed', variant: 'invalid-json', method: 'tools/call', times: 1 }); await call('lab__echo', undefined, 1500); await call('lab__echo'); break;
    case 'badsse': await F({ type: 'malformed', variant: 'invalid-json-sse', method: 'tools/call', times: 1 }); await call('lab__echo', undefined, 1500); await call('lab__echo'); break;
    case 'notrpc': await F({ type: 'malformed', variant: 'not-jsonrpc', method: 'tools/call', times: 1 }); await call('lab__echo', undefined, 1500); await call('lab__echo'); break;
    case 'html': await F({ type: 'malformed', variant: 'wrong-content-type', method: 'tools/call', times: 1 }); await call('lab__echo', undefined, 1500); await call('lab__echo'); break;
    case 'stall': await F({ type: 'stall', method: 'tools/call', times: 1 }); await call('lab__echo'); await call('lab__echo'); break;
    case 'stallh': await F({ type: 'stall', headers: true, method: 'tools/call', times: 1 }); await call('lab__echo'); await call('lab__echo'); break;
    case 'latency': await F({ type: 'latency', ms: 400, method: 'tools/call' }); await call('lab__echo'); console.log(JSON.stringify(core.trace.snapshots.snapshot(id)!.latency)); break;
    case 'big': { const r = await call('lab__big', {}); console.log('len', (r as any).result?.result?.content?.[0]?.text?.length); break; }
    case 'flood': await F({ type: 'flood', count: 2000, method: 'tools/call' }); await call('lab__echo'); break;
    case 'storm': { await sleep(300); const before = [...core.trace.store.all()].filter(e => e.server === id && e.kind === 'http-request' && e.rpc?.method === 'tools/list').length; console.log(await lab.storm(200)); await sleep(1500); const after = [...core.trace.store.all()].filter(e => e.server === id && e.kind === 'http-request' && e.rpc?.method === 'tools/list').length; console.log('tools/list before', before, 'after', after); const lt = await core.dispatch('listTools', {}); console.log('tools', (lt as any).result.length); break; }
    case 'expiry': { await lab.reset(); await F({ type: 'session-expiry', afterRequests: 6 }); for (let i = 0; i < 7; i++) { const r = await conn.withClient('tools/list', true, (c) => c.listTools()); console.log('list', i, r.tools.length); } await call('lab__echo'); await call('lab__echo'); break; }
  }
  await sleep(300);
  console.log('states', states.join(' → '));
  console.log('final', conn.snapshot().state, conn.snapshot().errorKind, conn.snapshot().error);
  if (process.env.DUMP) dump(process.env.DUMP === 'all' ? undefined : (e) => e.kind !== 'sse-event' || !e.rpc || e.rpc.method !== 'notifications/message');
  console.log('lab recent', JSON.stringify((await lab.state()).recent.map((r) => [r.http, r.methods.join(','), r.faults.join(','), r.status])));
} finally {
  await core.shutdown();
  await lab.close();
}
