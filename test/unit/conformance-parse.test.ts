/** The pieces of server conformance that judge hostile input: checks.json, the needs table, the deciding exchange. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConformanceCheck } from '../../contract/checks';
import type { TraceEvent } from '../../contract/trace';
import { MAX_CHECKS_FILE_BYTES, parseChecks, readChecks, scenarioVerdict, verdictOf } from '../../main/core/conformance/checks-file';
import { decidingSeq } from '../../main/core/conformance/exchange';
import { notApplicableReason, type ServerInventory } from '../../main/core/conformance/needs';

const dir = mkdtempSync(join(tmpdir(), 'sb-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checks.json', () => {
  it('maps the runner statuses and keeps every string within the contract', () => {
    expect(['SUCCESS', 'FAILURE', 'WARNING', 'INFO', 'SKIPPED', 'WHATEVER'].map(verdictOf)).toEqual(['passed', 'failed', 'warning', 'info', 'skipped', 'failed']);
    const checks = parseChecks(
      JSON.stringify([
        { id: 'a', name: 'A', status: 'SUCCESS', specReferences: [{ id: 'MCP-X', url: 'https://example.com/x' }] },
        { id: 'b'.repeat(1000), status: 'FAILURE', errorMessage: 'e'.repeat(100_000), details: { big: 'd'.repeat(100_000) }, specReferences: [{ id: 'bad', url: 'javascript:alert(1)' }] },
        { status: 'FAILURE' }, // no id: dropped
        'not an object',
      ]),
    );
    expect(checks).toHaveLength(2);
    for (const check of checks) ConformanceCheck.parse(check); // within every bound
    expect(checks[0]).toMatchObject({ id: 'a', verdict: 'passed', specRefs: [{ id: 'MCP-X', url: 'https://example.com/x' }] });
    expect(checks[1]!.verdict).toBe('failed');
    expect(checks[1]!.specRefs).toEqual([{ id: 'bad' }]);
    expect(() => parseChecks('{"not":"an array"}')).toThrow('not an array');
    expect(() => parseChecks('nope')).toThrow('not JSON');
  });

  it('a secret in a message is scrubbed; an oversized file is refused; a missing one said plainly', () => {
    const [check] = parseChecks(JSON.stringify([{ id: 'x', status: 'FAILURE', errorMessage: 'got token abc123' }]), (t) => t.replaceAll('abc123', '[redacted]'));
    expect(check!.message).toBe('got token [redacted]');
    const big = join(dir, 'big', 'server-x-1');
    mkdirSync(big, { recursive: true });
    writeFileSync(join(big, 'checks.json'), ' '.repeat(MAX_CHECKS_FILE_BYTES + 1));
    expect(() => readChecks(join(dir, 'big'))).toThrow('are not read');
    expect(() => readChecks(join(dir, 'none'))).toThrow('wrote no checks.json');
  });

  it("a scenario's verdict: failed over warning over passed; none at all is a failure", () => {
    const c = (verdict: ConformanceCheck['verdict']) => ({ id: verdict, name: verdict, verdict, specRefs: [] });
    expect(scenarioVerdict([c('passed'), c('warning')])).toBe('warning');
    expect(scenarioVerdict([c('passed'), c('failed'), c('warning')])).toBe('failed');
    expect(scenarioVerdict([c('info')])).toBe('info');
    expect(scenarioVerdict([c('skipped')])).toBe('skipped');
    expect(scenarioVerdict([])).toBe('failed');
  });
});

describe('not applicable', () => {
  const inventory = (over: Partial<ServerInventory> = {}): ServerInventory => ({ tools: new Set(), resources: new Set(), resourceTemplates: new Set(), prompts: new Set(), capabilities: { tools: {} }, ...over });
  const local = { localhost: true, credentials: false };
  it('names the missing tool, resource, template, prompt or capability', () => {
    expect(notApplicableReason('tools-call-image', inventory(), local)).toBe('needs the tool test_image_content, which this server does not list');
    expect(notApplicableReason('tools-call-image', inventory({ tools: new Set(['test_image_content']) }), local)).toBeUndefined();
    expect(notApplicableReason('completion-complete', inventory(), local)).toBe('needs the completions capability, which this server does not declare');
    expect(notApplicableReason('completion-complete', inventory({ capabilities: { completions: {} } }), local)).toBe('needs the prompt test_prompt_with_arguments, which this server does not list');
    expect(notApplicableReason('resources-subscribe', inventory({ capabilities: { resources: {} }, resources: new Set(['test://watched-resource']) }), local)).toContain('capabilities.resources.subscribe');
    expect(notApplicableReason('resources-templates-read', inventory(), local)).toBe('needs the resource template test://template/{id}/data, which this server does not list');
    expect(notApplicableReason('dns-rebinding-protection', inventory(), { localhost: false, credentials: false })).toContain('localhost servers only');
    expect(notApplicableReason('dns-rebinding-protection', inventory(), local)).toBeUndefined();
    // A scenario a newer suite adds runs as it is.
    expect(notApplicableReason('some-new-scenario', inventory(), local)).toBeUndefined();
  });
});

describe('the deciding exchange', () => {
  const ev = (seq: number, e: Partial<TraceEvent>): TraceEvent => ({ seq, ts: seq, server: 's', channel: 'post-sse', kind: 'http-request', dir: 'out', ...e });
  const events = [
    ev(1, { exchange: 'x1', rpc: { id: 0, method: 'initialize', kind: 'request' } }),
    ev(2, { exchange: 'x1', kind: 'sse-event', dir: 'in', session: 'S', rpc: { id: 0, kind: 'result' } }),
    ev(3, { exchange: 'x2', session: 'S', rpc: { id: 1, method: 'tools/call', kind: 'request' }, body: { params: { name: 'other' } } }),
    ev(4, { exchange: 'x2', kind: 'sse-event', dir: 'in', session: 'S', rpc: { id: 1, kind: 'result' } }),
    ev(5, { exchange: 'x3', session: 'S', rpc: { id: 2, method: 'tools/call', kind: 'request' }, body: { params: { name: 'test_image_content' } } }),
    ev(6, { exchange: 'x3', kind: 'http-response', dir: 'in', session: 'S', http: { status: 200 } }),
    ev(7, { exchange: 'x3', kind: 'sse-event', dir: 'in', session: 'S', rpc: { id: 2, kind: 'result' } }),
  ];
  it('is the answer to the request naming the tool, matched by exchange', () => {
    expect(decidingSeq(events, { method: 'tools/call', name: 'test_image_content' })).toBe(7);
    expect(decidingSeq(events, { method: 'initialize' })).toBe(2);
  });
  it('without an answer: the HTTP response; without the request: the first error, else the first request', () => {
    expect(decidingSeq(events.slice(0, 6), { method: 'tools/call', name: 'test_image_content' })).toBe(6);
    const failing = [...events, ev(8, { exchange: 'x4', kind: 'http-response', dir: 'in', http: { status: 406 } })];
    expect(decidingSeq(failing, { method: 'resources/read' })).toBe(8);
    expect(decidingSeq(events, undefined)).toBe(1);
    expect(decidingSeq([], { method: 'ping' })).toBeUndefined();
  });
});
