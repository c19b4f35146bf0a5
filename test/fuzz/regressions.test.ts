/**
 * Every bug the fuzzer found, pinned as its smallest case, run with the same invariants
 * (run.ts) against the real host. `open: true` marks a bug not fixed on this branch yet: the
 * test is `it.fails` (it passes while the bug is there, and fails once it is fixed — then flip
 * `open` to false and it guards the fix). `found` is the seed and path that found it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FuzzCase, Gen } from '../fixtures/fuzz/case';
import { Fuzzer } from './run';

interface Regression {
  name: string;
  found: string;
  /** Where the bug lives. */
  where: string;
  /** The invariants (failure prefixes) that must hold. */
  invariants: string[];
  open: boolean;
  case: FuzzCase;
}

const notification = (params: Gen): Gen => ({ o: [['jsonrpc', '2.0'], ['method', 'notifications/unknown'], ['params', params]] });

export const REGRESSIONS: Regression[] = [
  {
    name: 'a 50,000-level value in a stdio line kills the host when the trace is queried',
    found: 'seed 1 path 11; seed 2 paths 11, 15, 25; seed 4004 path 8',
    where: 'contract/ws.ts encodeReply (JSON.stringify) ← main/adapters/web/host.ts:154; fixed in wt-core ebba906',
    invariants: ['alive', 'reply', 'traceQuery', 'removeServer', 'appInfo'],
    open: false,
    case: { carrier: 'stdio', target: 'tools/list', frames: [{ kind: 'value', value: notification({ deep: 50_000, kind: 'a', leaf: null }) }, { kind: 'real' }] },
  },
  {
    name: 'a deep value anywhere in the trace makes every later JSONL and HAR export fail',
    found: 'seed 10 paths 7–14, seeds 11 and 12 (every case after the first deep one)',
    where: 'main/core/trace/export-jsonl.ts:60 and export-har.ts (JSON.stringify of each event); fixed in wt-core ebba906',
    invariants: ['export'],
    open: false,
    case: { carrier: 'http-modern', target: 'tools/list', frames: [{ kind: 'value', value: notification({ deep: 20_000, kind: 'a', leaf: null }) }, { kind: 'real' }] },
  },
  {
    name: 'a deep SSE event over 256 KiB is lost from the trace (the store cannot spill it)',
    found: 'seed 10 path 7, seed 12 path 7',
    where: 'main/core/trace/store.ts:324 storeBlob (JSON.stringify throws inside append; the recorder drops the event); fixed in wt-core ebba906',
    invariants: ['raw'],
    open: false,
    case: { carrier: 'sse', target: 'tools/list', frames: [{ kind: 'real' }, { kind: 'value', value: notification({ deep: 60_000, kind: 'o', leaf: null }) }] },
  },
  {
    name: 'the body of a 401 the SDK never reads is not in the trace',
    found: 'seed 10 path 1, seed 12 path 3',
    where: 'main/core/transport/tracking-fetch.ts: bodies are recorded only as the SDK reads them',
    invariants: ['raw'],
    open: true,
    case: { carrier: 'http-legacy', target: 'tools/list', frames: [{ kind: 'real' }], http: { status: 401, contentType: 'application/json' } },
  },
  {
    name: 'a "__proto__" key in a value deep enough to be cut vanishes from the trace (and becomes the copy\'s prototype)',
    found: 'seed 101 path 20 (params.progressToken: 4 entries sent, 3 traced)',
    where: 'contract/bounded-json.ts cut(): `copy[k] = …` on a plain object sets the prototype for k = "__proto__"; define the property instead (Object.defineProperty) — redact.ts json() has the same assignment',
    invariants: ['raw'],
    open: true,
    case: {
      carrier: 'stdio',
      target: 'tools/list',
      frames: [{ kind: 'value', value: notification({ o: [['__proto__', { o: [['isError', true]] }], ['deep', { deep: 100, kind: 'a', leaf: null }]] }) }, { kind: 'real' }],
    },
  },
];

let fuzzer: Fuzzer;
beforeAll(async () => {
  fuzzer = await Fuzzer.start();
}, 60_000);
afterAll(async () => {
  await fuzzer?.close();
});

describe('fuzz regressions', () => {
  for (const r of REGRESSIONS) {
    (r.open ? it.fails : it)(`${r.open ? '[open] ' : ''}${r.name} (${r.where})`, async () => {
      const result = await fuzzer.runCase(r.case);
      const broken = result.failures.filter((f) => r.invariants.some((i) => f.startsWith(i)));
      expect(broken, result.failures.join('\n').slice(0, 4000)).toEqual([]);
    }, 90_000);
  }
});
