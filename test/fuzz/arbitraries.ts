/**
 * fast-check arbitraries for hostile-server cases (test/fixtures/fuzz/case.ts): valid, odd and
 * invalid JSON-RPC, wrong types in every field of the list results and their schemas, deep and
 * huge values, invalid UTF-8, NUL and control characters, numbers out of range, extra and
 * out-of-order messages, HTTP statuses and content types that lie, SSE streams cut mid-event.
 * Strings carry markup that sets `window.__pwned` if a renderer ever executes it.
 */
import fc from 'fast-check';
import { CARRIERS, TARGETS, type Carrier, type Frame, type FuzzCase, type Gen, type HttpLie, type StrPart } from '../fixtures/fuzz/case';

/** Strings that run code if a client ever treats them as markup or a link. */
export const XSS = [
  '<img src=x onerror=window.__pwned=1>',
  '<script>window.__pwned=1</script>',
  '<svg onload=window.__pwned=1></svg>',
  'javascript:window.__pwned=1',
  '"><img src=x onerror=window.__pwned=1>',
  "'><iframe src=javascript:window.__pwned=1>",
  '<a href="javascript:window.__pwned=1">click</a>',
  '{{constructor.constructor("window.__pwned=1")()}}',
] as const;

const ODD_TEXT = ['\u0000', '\u0007\u001b[2J\u001b]8;;javascript:window.__pwned=1\u0007link\u001b]8;;\u0007', '\u202eevil\u202c', '\u200b\u200d\ufeff', '\ud800', '\udfff\ud800', '__proto__', 'constructor', '\r\n\r\n', 'data: x\n\n', '🙂'.repeat(3)];

/** Raw bytes that are not valid UTF-8 (or are, oddly): lone continuation, overlong, surrogate, beyond U+10FFFF. */
const BAD_UTF8 = ['ff', 'c3', '80', 'c0af', 'eda080', 'f4908080', 'fe', 'e2', '00', '1f', '7f'];

/** Number tokens JSON.stringify cannot write, or that no double holds. */
const ODD_NUMBERS = ['1e400', '-1e400', '-0', '-0.0', '-0.00e3', '123456789012345678901234567890', '1e-400', '0.1e1', '-9007199254740993', '9007199254740993', '1E+2', 'NaN', 'Infinity', '01', '.5', '1.', '+1', '0x10'];

export interface Scale {
  /** Longest repeated string part (characters). */
  maxRepeat: number;
  /** Deepest nesting. */
  maxDepth: number;
  /** Most items in a huge array/object. */
  maxItems: number;
}

export const CI_SCALE: Scale = { maxRepeat: 300_000, maxDepth: 100_000, maxItems: 20_000 };
const TINY: Scale = { maxRepeat: 20, maxDepth: 8, maxItems: 8 };
export const FULL_SCALE: Scale = { maxRepeat: 4_000_000, maxDepth: 100_000, maxItems: 200_000 };

const text = (): fc.Arbitrary<string> => fc.oneof(fc.constantFrom(...XSS), fc.constantFrom(...ODD_TEXT), fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }));

function strPart(scale: Scale): fc.Arbitrary<StrPart> {
  return fc.oneof(
    { weight: 4, arbitrary: text() },
    { weight: 1, arbitrary: fc.record({ rep: fc.constantFrom('a', XSS[0], '\u0000', 'é'), n: fc.integer({ min: 1, max: scale.maxRepeat }) }) },
    { weight: 1, arbitrary: fc.record({ hex: fc.constantFrom(...BAD_UTF8) }) },
  );
}

export function str(scale: Scale): fc.Arbitrary<Gen> {
  return fc.oneof({ weight: 3, arbitrary: text() }, { weight: 2, arbitrary: fc.record({ s: fc.array(strPart(scale), { minLength: 1, maxLength: 4 }) }) });
}

const num = (): fc.Arbitrary<Gen> =>
  fc.oneof(
    fc.constantFrom(...ODD_NUMBERS).map((n) => ({ n })),
    fc.integer().map((n) => ({ n: String(n) })),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => ({ n: JSON.stringify(n) })),
  );

/** Field names a client looks for, markup and prototype keys. */
const key = (): fc.Arbitrary<string> =>
  fc.oneof(fc.constantFrom('name', 'type', 'properties', 'description', 'uri', 'text', 'id', 'jsonrpc', 'result', 'error', '__proto__', 'constructor', '$ref', 'items', ''), fc.constantFrom(...XSS), fc.string({ maxLength: 6 }));

export function value(scale: Scale): fc.Arbitrary<Gen> {
  const { tree } = fc.letrec<{ tree: Gen }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 3, arbitrary: fc.oneof(fc.constant(null), fc.boolean(), str(scale), num()) },
      { weight: 1, arbitrary: fc.array(tie('tree'), { maxLength: 4 }).map((a) => ({ a })) },
      { weight: 1, arbitrary: fc.array(fc.tuple(fc.oneof(key(), str(scale) as fc.Arbitrary<string>), tie('tree')), { maxLength: 4 }).map((o) => ({ o: o as [string, Gen][] })) },
      { weight: 1, arbitrary: fc.record({ deep: fc.integer({ min: 1, max: scale.maxDepth }), kind: fc.constantFrom<'a' | 'o'>('a', 'o'), leaf: fc.oneof(fc.constant(null), fc.constantFrom(...XSS)) }) },
      { weight: 1, arbitrary: fc.record({ big: fc.constantFrom<'a' | 'o'>('a', 'o'), n: fc.integer({ min: 0, max: scale.maxItems }), item: fc.oneof(fc.constant(null), fc.constantFrom(...XSS), fc.constant<Gen>({ o: [['name', XSS[0]]] })) }) },
    ),
  }));
  return tree;
}

/** A tool/prompt/resource that is valid in shape and hostile in content: it reaches the UI. */
function hostileItem(target: string, scale: Scale): fc.Arbitrary<Gen> {
  const name = fc.oneof(fc.constantFrom('x', 'a__b', 'echo', '.-_.', 'a'.repeat(128)), fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/));
  const hostile = fc.oneof(fc.constantFrom(...XSS), str(scale));
  const icon: fc.Arbitrary<Gen> = fc.constantFrom('javascript:window.__pwned=1', 'data:text/html,<script>window.__pwned=1</script>', 'data:image/svg+xml,<svg onload="window.__pwned=1"/>').map((src) => ({ a: [{ o: [['src', src]] }] }));
  if (target === 'prompts/list')
    return fc.tuple(name, hostile, hostile).map(([n, d, a]) => ({ o: [['name', n], ['description', d], ['arguments', { a: [{ o: [['name', 'x'], ['description', a]] }] }]] }));
  if (target === 'resources/list')
    return fc.tuple(hostile, hostile).map(([n, d]) => ({ o: [['uri', 'javascript:window.__pwned=1'], ['name', n], ['description', d], ['mimeType', 'text/html']] }));
  if (target === 'resources/templates/list') return fc.tuple(hostile).map(([n]) => ({ o: [['uriTemplate', 'x://{<img src=x onerror=window.__pwned=1>}'], ['name', n]] }));
  return fc.tuple(name, hostile, hostile, icon, value(scale)).map(([n, t, d, icons, schema]) => ({
    o: [
      ['name', n],
      ['title', t],
      ['description', d],
      ['icons', icons],
      ['inputSchema', { o: [['type', 'object'], ['properties', { o: [[XSS[0], { o: [['type', 'string'], ['description', d], ['default', t], ['enum', { a: [t, d] }], ['pattern', '^(a+)+$']] }], ['deep', schema]] }]] }],
    ],
  }));
}

/** Paths into each target's result that a client reads. */
const FIELDS: Record<string, (string | number)[][]> = {
  initialize: [['result'], ['result', 'protocolVersion'], ['result', 'capabilities'], ['result', 'capabilities', 'tools'], ['result', 'capabilities', 'resources'], ['result', 'serverInfo'], ['result', 'serverInfo', 'name'], ['result', 'serverInfo', 'version'], ['result', 'instructions']],
  'tools/list': [['result'], ['result', 'tools'], ['result', 'tools', 0], ['result', 'tools', 0, 'name'], ['result', 'tools', 0, 'title'], ['result', 'tools', 0, 'description'], ['result', 'tools', 0, 'inputSchema'], ['result', 'tools', 0, 'inputSchema', 'type'], ['result', 'tools', 0, 'inputSchema', 'properties'], ['result', 'tools', 0, 'inputSchema', 'required'], ['result', 'tools', 0, 'outputSchema'], ['result', 'tools', 0, 'annotations'], ['result', 'tools', 0, 'icons'], ['result', 'tools', 0, 'execution'], ['result', 'tools', 0, '_meta'], ['result', 'nextCursor']],
  'prompts/list': [['result'], ['result', 'prompts'], ['result', 'prompts', 0], ['result', 'prompts', 0, 'name'], ['result', 'prompts', 0, 'description'], ['result', 'prompts', 0, 'arguments'], ['result', 'prompts', 0, 'arguments', 0], ['result', 'prompts', 0, 'arguments', 0, 'name'], ['result', 'prompts', 0, 'arguments', 0, 'required']],
  'resources/list': [['result'], ['result', 'resources'], ['result', 'resources', 0], ['result', 'resources', 0, 'uri'], ['result', 'resources', 0, 'name'], ['result', 'resources', 0, 'mimeType'], ['result', 'resources', 0, 'size'], ['result', 'resources', 0, 'annotations']],
  'resources/templates/list': [['result'], ['result', 'resourceTemplates'], ['result', 'resourceTemplates', 0], ['result', 'resourceTemplates', 0, 'uriTemplate'], ['result', 'resourceTemplates', 0, 'name']],
  'prompts/get': [['result'], ['result', 'description'], ['result', 'messages'], ['result', 'messages', 0], ['result', 'messages', 0, 'role'], ['result', 'messages', 0, 'content'], ['result', 'messages', 0, 'content', 'type'], ['result', 'messages', 0, 'content', 'text']],
  'resources/read': [['result'], ['result', 'contents'], ['result', 'contents', 0], ['result', 'contents', 0, 'uri'], ['result', 'contents', 0, 'mimeType'], ['result', 'contents', 0, 'text'], ['result', 'contents', 0, 'blob']],
  'completion/complete': [['result'], ['result', 'completion'], ['result', 'completion', 'values'], ['result', 'completion', 'values', 0], ['result', 'completion', 'total'], ['result', 'completion', 'hasMore']],
  'tools/call': [['result'], ['result', 'content'], ['result', 'content', 0], ['result', 'content', 0, 'type'], ['result', 'content', 0, 'text'], ['result', 'structuredContent'], ['result', 'isError'], ['result', '_meta']],
};
const ENVELOPE: (string | number)[][] = [['jsonrpc'], ['id'], ['error'], ['error', 'code'], ['error', 'message']];
const LIST_KEY: Record<string, string> = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resourceTemplates' };

function patch(target: string, scale: Scale): fc.Arbitrary<Frame> {
  const setOne = fc.oneof(
    { weight: 4, arbitrary: fc.record({ path: fc.constantFrom(...FIELDS[target]!), value: value(scale), del: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ path: fc.constantFrom(...ENVELOPE), value: fc.oneof(value(scale), fc.constantFrom<Gen>('1.0', { n: '99999' }, { n: '1' }, { n: '-0' }, { n: '1e400' })), del: fc.boolean() }) },
  );
  const sets = fc.array(setOne, { minLength: 1, maxLength: 3 });
  const list = LIST_KEY[target];
  if (!list) return sets.map((set) => ({ kind: 'patch', set }));
  // A list that is valid in shape and hostile in content, sometimes many items long.
  // (A repeated item is kept small: a thousand copies of a megabyte is a test of the network.)
  const few = fc.array(hostileItem(target, scale), { minLength: 1, maxLength: 4 }).map((items): Gen => ({ a: items }));
  const many = fc.record({ item: hostileItem(target, TINY), n: fc.integer({ min: 2, max: 2000 }) }).map(({ item, n }): Gen => ({ big: 'a', n, item }));
  return fc.oneof(
    { weight: 2, arbitrary: sets.map((set): Frame => ({ kind: 'patch', set })) },
    { weight: 2, arbitrary: fc.oneof(few, many).map((value): Frame => ({ kind: 'patch', set: [{ path: ['result', list], value }] })) },
  );
}

const b64 = (s: string | Buffer): string => Buffer.from(s as string).toString('base64');

/** A line or event that is not the answer: garbage, stray JSON-RPC, server requests, batches. */
function extra(scale: Scale): fc.Arbitrary<Frame> {
  const rpc = (entries: [string, Gen][]): Gen => ({ o: [['jsonrpc', '2.0'], ...entries] });
  return fc.oneof(
    fc.constantFrom('garbage', '<html><body>captive portal</body></html>', '\u001b[31mred\u001b[0m', '{"half":', '[]', '{}', 'null', '', ' ', 'Content-Length: 10\r\n').map((t): Frame => ({ kind: 'bytes', b64: b64(t) })),
    fc.constantFrom(...BAD_UTF8).map((h): Frame => ({ kind: 'bytes', b64: Buffer.concat([Buffer.from('x'), Buffer.from(h, 'hex'), Buffer.from('y')]).toString('base64') })),
    value(scale).map((params): Frame => ({ kind: 'value', value: rpc([['method', 'notifications/unknown/<img src=x onerror=window.__pwned=1>'], ['params', params]]) })),
    value(scale).map((params): Frame => ({ kind: 'value', value: rpc([['method', 'notifications/message'], ['params', { o: [['level', 'error'], ['data', params]] }]]) })),
    value(scale).map((params): Frame => ({ kind: 'value', value: rpc([['method', 'notifications/progress'], ['params', { o: [['progressToken', params], ['progress', { n: '1e400' }]] }]]) })),
    fc.constantFrom('notifications/tools/list_changed', 'notifications/resources/updated', 'notifications/cancelled').map((method): Frame => ({ kind: 'value', value: rpc([['method', method]]) })),
    fc.tuple(fc.oneof(num(), str(scale)), value(scale)).map(([id, result]): Frame => ({ kind: 'value', value: rpc([['id', id], ['result', result]]) })),
    fc.tuple(fc.oneof(num(), str(scale)), value(scale)).map(([id, method]): Frame => ({ kind: 'value', value: rpc([['id', id], ['method', method]]) })),
    fc.constantFrom('sampling/createMessage', 'elicitation/create', 'roots/list', 'ping', 'weird/method').map((method): Frame => ({ kind: 'value', value: rpc([['id', 'srv-1'], ['method', method], ['params', { o: [] }]]) })),
    // Valid server requests with hostile content: they become pending items the UI shows.
    str(scale).map((m): Frame => ({ kind: 'value', value: rpc([['id', 'srv-2'], ['method', 'elicitation/create'], ['params', { o: [['message', m], ['requestedSchema', { o: [['type', 'object'], ['properties', { o: [[XSS[0], { o: [['type', 'string'], ['description', m], ['default', XSS[3]]] }]] }]] }]] }]]) })),
    str(scale).map((m): Frame => ({ kind: 'value', value: rpc([['id', 'srv-3'], ['method', 'sampling/createMessage'], ['params', { o: [['messages', { a: [{ o: [['role', 'user'], ['content', { o: [['type', 'text'], ['text', m]] }]] }] }], ['maxTokens', { n: '10' }], ['systemPrompt', XSS[0]]] }]]) })),
    fc.array(value(scale), { maxLength: 3 }).map((items): Frame => ({ kind: 'value', value: { a: items } })),
    value(scale).map((v): Frame => ({ kind: 'value', value: v })),
    fc.constant<Frame>({ kind: 'real' }),
    value(scale).map((result): Frame => ({ kind: 'value', value: { o: [['id', { n: '1' }], ['result', result]] } })),
  );
}

/** What replaces the answer: patched, replaced, cut, batched, or the answer itself among extras. */
function mainFrame(target: string, scale: Scale): fc.Arbitrary<Frame> {
  return fc.oneof(
    { weight: 5, arbitrary: patch(target, scale) },
    { weight: 1, arbitrary: fc.constant<Frame>({ kind: 'real' }) },
    { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((at): Frame => ({ kind: 'cut', at })) },
    { weight: 1, arbitrary: value(scale).map((v): Frame => ({ kind: 'value', value: { o: [['jsonrpc', '2.0'], ['result', v]] }, withRealId: true })) },
    { weight: 1, arbitrary: value(scale).map((v): Frame => ({ kind: 'value', value: { o: [['jsonrpc', '2.0'], ['error', v]] }, withRealId: true })) },
  );
}

function frames(target: string, scale: Scale): fc.Arbitrary<Frame[]> {
  return fc
    .record({ before: fc.array(extra(scale), { maxLength: 3 }), main: mainFrame(target, scale), after: fc.array(extra(scale), { maxLength: 2 }), thenReal: fc.boolean() })
    .map(({ before, main, after, thenReal }) => [...before, main, ...after, ...(thenReal && main.kind !== 'real' ? [{ kind: 'real' } as Frame] : [])]);
}

const SSE_GARBAGE = ['garbage\n', ': comment\n', 'data: {"x"\n\n', 'retry: abc\n', 'retry: 1\n', 'id: \u0000\n', 'event: \n', 'data\n\n', '\r\r\n', 'id: 1\ndata:\n\n'];

function httpLie(carrier: Carrier): fc.Arbitrary<HttpLie | undefined> {
  const lie = fc.record(
    {
      status: fc.constantFrom(200, 201, 202, 204, 206, 301, 302, 400, 401, 403, 404, 405, 406, 409, 413, 429, 500, 502, 503, 599, 999),
      contentType: fc.constantFrom('text/html', 'application/json', 'text/event-stream', 'text/plain', '', 'application/json; charset=utf-16', 'text/event-stream; charset=latin1', 'image/png', 'application/json, text/event-stream', 'multipart/mixed; boundary=x'),
      sse: fc.boolean(),
      between: fc.oneof(fc.constantFrom(...SSE_GARBAGE), fc.string({ unit: 'binary', maxLength: 10 })).map(b64),
      cutAt: fc.integer({ min: 0, max: 600 }),
    },
    { requiredKeys: [] },
  );
  if (carrier === 'stdio') return fc.constant(undefined);
  return fc.option(lie, { nil: undefined, freq: 2 });
}

export function fuzzCase(scale: Scale = CI_SCALE, carriers: readonly Carrier[] = CARRIERS): fc.Arbitrary<FuzzCase> {
  return fc
    .record({ carrier: fc.constantFrom(...carriers), target: fc.constantFrom(...TARGETS) })
    .chain(({ carrier, target }) =>
      fc.record({ carrier: fc.constant(carrier), target: fc.constant(target), frames: frames(target, scale), http: httpLie(carrier) }).map((c): FuzzCase => {
        const { http, ...rest } = c;
        return http ? { ...rest, http } : rest;
      }),
    );
}
