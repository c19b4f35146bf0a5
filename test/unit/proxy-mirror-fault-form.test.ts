/** The faults panel's rules (#12): the form's text fields into a fault the contract accepts, or the reasons it is not one. */
import { describe, expect, it } from 'vitest';
import { FAULTS_BY_TRANSPORT, FaultSchema } from '../../contract/faults';
import { FAULT_DESCRIPTIONS, FAULT_PARAMS, buildFault, defaultForm, describeFault } from '../../renderer/src/features/proxy/fault-form';

describe('fault form', () => {
  it('builds every type a proxy can inject from its defaults, as the contract validates it', () => {
    for (const type of new Set([...FAULTS_BY_TRANSPORT.stdio, ...FAULTS_BY_TRANSPORT.http])) {
      const built = buildFault(defaultForm(type));
      expect(built.errors, type).toBeUndefined();
      expect(FaultSchema.parse(built.fault)).toEqual(built.fault);
      expect(FAULT_DESCRIPTIONS[type].length).toBeGreaterThan(10);
    }
  });

  it('scopes by method (tools/call by default, several comma-separated, none) and rate in percent', () => {
    expect(buildFault(defaultForm('latency')).fault).toEqual({ type: 'latency', ms: 1000, method: 'tools/call' });
    expect(buildFault({ ...defaultForm('jsonrpc-error'), method: 'tools/call, resources/read', rate: '25', params: { code: '-32000', message: 'nope' } }).fault).toEqual({
      type: 'jsonrpc-error',
      code: -32000,
      message: 'nope',
      method: ['tools/call', 'resources/read'],
      rate: 0.25,
    });
    expect(buildFault({ ...defaultForm('stall'), method: ' ' }).fault).toMatchObject({ type: 'stall' });
    expect(buildFault({ ...defaultForm('stall'), method: '' }).fault).not.toHaveProperty('method');
    // session-expiry has no scope: neither method nor rate is sent.
    expect(buildFault(defaultForm('session-expiry')).fault).toEqual({ type: 'session-expiry', afterRequests: 3 });
  });

  it('says what is wrong, field by field', () => {
    expect(buildFault({ ...defaultForm('latency'), rate: '150' }).errors).toEqual({ rate: 'A rate is a share from 0 to 100 %.' });
    expect(buildFault({ ...defaultForm('latency'), rate: 'lots' }).errors).toHaveProperty('rate');
    expect(buildFault({ ...defaultForm('latency'), params: { ms: '1.5' } }).errors).toEqual({ ms: 'Delay (ms): a whole number.' });
    expect(buildFault({ ...defaultForm('latency'), params: { ms: '' } }).errors).toEqual({ ms: 'Delay (ms) is needed.' });
    // The contract's own bounds come back on their field.
    expect(buildFault({ ...defaultForm('latency'), params: { ms: '999999999' } }).errors).toHaveProperty('ms');
    expect(buildFault({ ...defaultForm('http-error'), params: { status: '200', retryAfter: '' } }).errors).toHaveProperty('status');
    expect(buildFault({ ...defaultForm('latency'), method: 'x'.repeat(201) }).errors).toHaveProperty('method');
  });

  it('describes a fault on one line', () => {
    expect(describeFault(FaultSchema.parse({ type: 'latency', ms: 250, method: 'tools/call', rate: 0.5 }))).toBe('latency 250 ms · tools/call · 50 %');
    expect(describeFault(FaultSchema.parse({ type: 'jsonrpc-error', code: -32042, message: 'boom' }))).toBe('jsonrpc-error -32042 "boom" · every request');
    expect(describeFault(FaultSchema.parse({ type: 'session-expiry', afterRequests: 2 }))).toBe('session-expiry after 2');
    for (const [type, fields] of Object.entries(FAULT_PARAMS)) for (const field of fields) expect(field.label, `${type}.${field.key}`).toBeTruthy();
  });
});
