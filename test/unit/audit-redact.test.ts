/** #18 item 5: the redaction rules for arguments, URL parameters, configured headers and short secrets. */
import { describe, expect, it } from 'vitest';
import { HttpTarget, StdioTarget } from '../../contract';
import { REDACTED, Redactor, SUBSTRING_MIN, configSecrets, redactArgs, redactUrl } from '../../main/core/trace/redact';

describe('command-line arguments', () => {
  it('redacts the values of secret-looking options, in both spellings', () => {
    expect(redactArgs(['serve', '--token=abc123', '--api-key', 'K', '--port', '8080', '-v', '--auth', 'x', '--keyfile', '/k', '--password=', '--secret', '--next'])).toEqual([
      'serve',
      `--token=${REDACTED}`,
      '--api-key',
      REDACTED,
      '--port',
      '8080',
      '-v',
      '--auth',
      REDACTED,
      '--keyfile',
      '/k',
      `--password=${REDACTED}`,
      '--secret',
      '--next',
    ]);
  });

  it('redacts an argument that is a configured secret, whatever its length', () => {
    const redactor = new Redactor();
    redactor.addSecret('ab');
    expect(redactor.args(['ab', '--x=ab', 'abc'])).toEqual([REDACTED, `--x=${REDACTED}`, 'abc']);
  });

  it('finds the secret values of a stdio config (env and options)', () => {
    const target = StdioTarget.parse({ type: 'stdio', command: 'srv', args: ['--token=t0k', '--api-key', 'k3y', '--name', 'n'], env: { A: 'one', B: 'two' }, nonSecretEnv: ['B'] });
    expect(configSecrets(target).sort()).toEqual(['k3y', 'one', 't0k']);
  });
});

describe('URLs', () => {
  it.each(['api_key', 'apikey', 'key', 'token', 'access_token', 'auth', 'sig', 'signature', 'client_secret', 'password', 'x-api-key'])('redacts ?%s=', (name) => {
    const out = redactUrl(`https://api.example/mcp?${name}=v4lue&page=2`);
    expect(out).not.toContain('v4lue');
    expect(out).toContain('page=2');
  });

  it('keeps ordinary parameters and redacts configured values under any name', () => {
    const redactor = new Redactor();
    redactor.addSecret('q1');
    expect(redactor.url('https://x.example/?monkey=1&keyboard=2&id=q1')).toBe('https://x.example/?monkey=1&keyboard=2&id=%5Bredacted%5D');
  });

  it('finds the secret values of an http config: every header unless marked, secret URL parameters', () => {
    const target = HttpTarget.parse({
      type: 'http',
      url: 'https://x.example/mcp?api_key=qk&page=3',
      headers: { 'X-Custom-Key': 'ck', Authorization: 'Bearer bt', 'X-Region': 'eu' },
      nonSecretHeaders: ['x-region'],
    });
    expect(new Set(configSecrets(target))).toEqual(new Set(['ck', 'Bearer bt', 'bt', 'qk']));
  });
});

describe('short secrets', () => {
  const redactor = new Redactor();
  redactor.addSecret('k9');
  redactor.addSecret('longer-secret');

  it('are redacted as whole values: JSON strings, headers, text', () => {
    expect(redactor.json({ a: 'k9', b: ['k9', 'k9x'], c: 9 }, false)).toEqual({ a: REDACTED, b: [REDACTED, 'k9x'], c: 9 });
    expect(redactor.headers({ 'X-Custom': 'k9', Accept: 'k9k9' })).toEqual({ 'x-custom': REDACTED, accept: 'k9k9' });
    expect(redactor.text('k9')).toBe(REDACTED);
    expect(redactor.form('a=k9&b=2')).toBe('a=%5Bredacted%5D&b=2');
  });

  it(`are left inside free text below ${SUBSTRING_MIN} characters; longer ones are not`, () => {
    expect(redactor.text('ok k9 and longer-secret')).toBe(`ok k9 and ${REDACTED}`);
  });
});
