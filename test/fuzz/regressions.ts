/**
 * Every bug the fuzzer found, as its smallest case (regressions.test.ts runs them). `open: true`
 * marks a bug not fixed on this branch: its `signature` matches the failure it causes, so the CI
 * fuzz run (fuzz.test.ts) reports such a failure as known instead of new. `found` is the seed and
 * path that found it (with the arbitraries of the commit that found it).
 */
import type { FuzzCase, Gen } from '../fixtures/fuzz/case';

export interface Regression {
  name: string;
  found: string;
  /** Where the bug lives. */
  where: string;
  /** The invariants (failure prefixes) that must hold. */
  invariants: string[];
  open: boolean;
  /** For an open bug: what its failure line looks like. */
  signature?: RegExp;
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
    name: 'numbers JSON.parse cannot keep (1e400, -0, 123456789012345678901234567890) reach the trace only as their parsed values, over stdio',
    found: 'fidelity check (every run: the arbitraries write such tokens in one case in three)',
    where: 'main/core/trace/rpc.ts traceBody: raw text was kept only for deep bodies; fixed on wt-fuzz (raw kept when lossyNumber finds one)',
    invariants: ['raw'],
    open: false,
    case: { carrier: 'stdio', target: 'tools/list', frames: [{ kind: 'value', value: notification({ o: [['big', { n: '1e400' }], ['zero', { n: '-0' }], ['int', { n: '123456789012345678901234567890' }]] }) }, { kind: 'real' }] },
  },
  {
    name: 'a negative zero written with a fraction (-0.0, -0.00e3) reaches the trace only as 0, over stdio',
    found: 'code reading, not the fuzzer: its fidelity check used the same lossyNumber, whose quick pre-test let -0.0 through; the arbitraries now write such tokens',
    where: 'main/core/trace/rpc.ts lossyNumber (now scanJsonText): the pre-test matched -0 only when no fraction followed',
    invariants: ['raw'],
    open: false,
    case: { carrier: 'stdio', target: 'tools/list', frames: [{ kind: 'value', value: notification({ o: [['zero', { n: '-0.0' }], ['scaled', { n: '-0.00e3' }]] }) }, { kind: 'real' }] },
  },
  {
    name: 'numbers JSON.parse cannot keep reach the trace only as their parsed values, in an SSE event',
    found: 'fidelity check',
    where: 'main/core/trace/rpc.ts traceBody (as above)',
    invariants: ['raw'],
    open: false,
    case: { carrier: 'http-legacy', target: 'tools/list', frames: [{ kind: 'patch', set: [{ path: ['result', 'nextCursor'], value: { n: '1e-400' } }, { path: ['result', 'tools', 0, '_meta'], value: { o: [['n', { n: '-9007199254740993' }]] } }] }] },
  },
  {
    name: 'the body of an HTTP answer the SDK does not read (a 401 on Streamable HTTP) is not in the trace',
    found: 'seed 10 path 1, seed 12 path 3, seed 101 path 18, seed 102 path 24, seed 202 path 4',
    where: 'main/core/transport/tracking-fetch.ts: a body was recorded only as the SDK read it (no http-end ever came); fixed: an error status is read from a copy',
    invariants: ['raw'],
    open: false,
    case: { carrier: 'http-legacy', target: 'tools/list', frames: [{ kind: 'real' }], http: { status: 401, contentType: 'application/json' } },
  },
  {
    name: 'the body of an HTTP answer the SDK does not read (a 999 to a legacy-SSE POST) is not in the trace',
    found: 'seed 301 path 11 (--full)',
    where: 'main/core/transport/tracking-fetch.ts: as above, on the legacy-post channel',
    invariants: ['raw'],
    open: false,
    case: { carrier: 'sse', target: 'initialize', frames: [{ kind: 'real' }], http: { status: 999, contentType: 'text/plain' } },
  },
  {
    name: 'a "__proto__" key in a value deep enough to be cut vanishes from the trace (and becomes the copy\'s prototype)',
    found: 'seed 101 path 20 (params.progressToken: 4 entries sent, 3 traced)',
    where: 'contract/bounded-json.ts cut(): `copy[k] = …` on a plain object sets the prototype for k = "__proto__"; define the property instead (Object.defineProperty) — redact.ts json() has the same assignment',
    invariants: ['raw'],
    open: false,
    case: {
      carrier: 'stdio',
      target: 'tools/list',
      frames: [{ kind: 'value', value: notification({ o: [['__proto__', { o: [['isError', true]] }], ['deep', { deep: 100, kind: 'a', leaf: null }]] }) }, { kind: 'real' }],
    },
  },
];

/** Whether a failure line is an open bug's (then it is known, not new). */
export function knownOpen(failure: string): Regression | undefined {
  return REGRESSIONS.find((r) => r.open && r.signature?.test(failure));
}
