/** The doctor's pure parts: reading a challenge, a body's JSON-RPC message, the summary, the CLI's lines. */
import { describe, expect, it } from 'vitest';
import type { DoctorReport, DoctorStep } from '../../contract/checks';
import { formatReport } from '../../main/adapters/cli/doctor';
import { bodyMessage } from '../../main/core/doctor/net';
import { resourceMetadataOf } from '../../main/core/doctor/oauth';
import { StepRunner, summarize } from '../../main/core/doctor/steps';
import { Redactor } from '../../main/core/trace/redact';

const step = (id: string, verdict: DoctorStep['verdict'], hint?: string): DoctorStep => ({ id, title: `Title ${id}`, verdict, durationMs: 1.5, detail: `detail ${id}`, ...(hint ? { hint } : {}), facts: [] });

describe('doctor parts', () => {
  it('reads resource_metadata from a Bearer challenge, quoted or not, and nothing from others', () => {
    expect(resourceMetadataOf('Bearer realm="x", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"')).toBe('https://a.example/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataOf(['Basic realm="y"', 'Bearer resource_metadata=https://b.example/prm'])).toBe('https://b.example/prm');
    expect(resourceMetadataOf('Bearer error="invalid_token"')).toBeUndefined();
    expect(resourceMetadataOf(undefined)).toBeUndefined();
  });

  it("finds an event stream's first JSON event past a priming event, and refuses what is not JSON", () => {
    const body = 'id: 1\ndata: \n\nevent: message\ndata: {"jsonrpc":"2.0","id":1,\ndata: "result":{}}\n\n';
    expect(bodyMessage(body, 'text/event-stream')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(bodyMessage('data: {"a"', 'text/event-stream')).toBeUndefined();
    expect(bodyMessage('{"jsonrpc":"2.0","id":2,"result":{}}', 'application/json')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(bodyMessage('<html>', 'text/html')).toBeUndefined();
  });

  it('names the first failure with its hint, counts warnings, and says Fine otherwise', () => {
    const broken = summarize([step('dns', 'ok'), step('tcp', 'failed', 'Start the server.'), step('tls', 'failed')]);
    expect(broken.firstFailure).toBe('tcp');
    expect(broken.summary).toBe('It breaks at "Title tcp": detail tcp Try: Start the server.');
    expect(summarize([step('a', 'ok'), step('b', 'warning')]).summary).toBe('Fine, with 1 warning: Title b.');
    expect(summarize([step('a', 'ok'), step('b', 'skipped'), step('c', 'info')])).toEqual({ summary: 'Fine: every step passed.' });
  });

  it('a step that throws or outlives its timeout fails alone; secrets in what it says are redacted', async () => {
    const redactor = new Redactor();
    redactor.addSecret('tok-1234567890');
    const runner = new StepRunner(redactor, 3);
    await runner.run('a', 'A', 1_000, async () => {
      throw new Error('refused with tok-1234567890');
    });
    await runner.run('b', 'B', 50, () => new Promise(() => undefined));
    await runner.run('c', 'C', 1_000, async () => ({ verdict: 'ok', detail: 'x'.repeat(10_000), facts: [{ label: 'token', value: 'Bearer tok-1234567890' }] }));
    const [a, b, c] = runner.steps;
    expect(a!.verdict).toBe('failed');
    expect(a!.detail).not.toContain('tok-1234567890');
    expect(b!.verdict).toBe('failed');
    expect(b!.detail).toMatch(/Timed out/);
    expect(c!.detail.length).toBeLessThan(4_000);
    expect(c!.facts[0]!.value).not.toContain('tok-1234567890');
  });

  it('the CLI prints a line a step and the hint under the first failure only', () => {
    const report: DoctorReport = { runId: 'r', target: 'http://x/mcp', transport: 'http', startedAt: 0, durationMs: 3, steps: [step('dns', 'ok'), step('tcp', 'failed', 'Start it.'), step('tls', 'skipped', 'never shown')], firstFailure: 'tcp', summary: 'It breaks.' };
    const lines = formatReport(report).split('\n');
    expect(lines[1]).toMatch(/^✓ dns +2 ms {2}detail dns$/);
    expect(lines[2]).toMatch(/^✗ tcp +2 ms {2}detail tcp$/);
    expect(lines[3]).toMatch(/→ Start it\.$/);
    expect(lines[4]).toMatch(/^– tls {11}detail tls$/);
    expect(formatReport(report)).not.toContain('never shown');
  });
});
