/** The fidelity rule the fuzzer found missing: which JSON number tokens JSON.parse changes. */
import { describe, expect, it } from 'vitest';
import { lossyNumber } from '../../main/core/trace/rpc';

describe('lossyNumber', () => {
  it.each([
    ['{"a":1e400}', '1e400'],
    ['[-1E+999]', '-1E+999'],
    ['{"a":1e-400}', '1e-400'],
    ['{"a":-0}', '-0'],
    ['{"a":123456789012345678901234567890}', '123456789012345678901234567890'],
    ['[9007199254740993]', '9007199254740993'],
  ])('%s loses %s', (text, token) => {
    expect(lossyNumber(text)).toBe(token);
  });

  it.each(['{"a":1}', '{"a":"1e400"}', '{"a":"x\\"-0 1e999"}', '[9007199254740992]', '[-0.5, 0.0, 0e5, 1.5e300]', '{"id":"12345678901234567890"}', ''])('%s keeps every number', (text) => {
    expect(lossyNumber(text)).toBeUndefined();
  });
});
