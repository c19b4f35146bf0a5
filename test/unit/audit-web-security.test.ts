/**
 * #18 items 6 and 10: browser mode's bind check parses the address as an IP address (a name
 * that merely starts with "127." is resolved through DNS and refused), and the token cookie's
 * name is unique per instance.
 */
import { describe, expect, it } from 'vitest';
import { checkBindAddress, checkRequest, tokenCookie, instanceIdOf, tokenCookieName } from '../../main/adapters/web/security';

describe('checkBindAddress', () => {
  it.each(['127.0.0.1', '127.1.2.3', '127.255.255.254', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost'])('allows loopback %s', (host) => {
    expect(checkBindAddress(host, false)).toBeUndefined();
  });

  it.each([
    ['127.evil.example', /not an IP address/],
    ['127.0.0.1.nip.io', /not an IP address/],
    ['127.1', /not an IP address/],
    ['127.0.0.1 ', /not an IP address/],
    ['localhost.evil.example', /not an IP address/],
    ['128.0.0.1', /only loopback/],
    ['10.0.0.1', /only loopback/],
    ['::2', /only loopback/],
    ['::ffff:10.0.0.1', /only loopback/],
    ['0.0.0.0', /UNSAFE-expose-to-network/],
    ['::', /UNSAFE-expose-to-network/],
  ])('refuses %s', (host, reason) => {
    expect(checkBindAddress(host, false)).toMatch(reason);
  });

  it('lets the loud flag through', () => {
    expect(checkBindAddress('127.evil.example', true)).toBeUndefined();
  });
});

describe('token cookie', () => {
  it('is named per port and per launch, HttpOnly and SameSite=Strict', () => {
    const a = tokenCookieName(4000);
    const b = tokenCookieName(4000);
    expect(a).toMatch(/^switchboard_token_4000_[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    expect(tokenCookieName(4001, 'x')).toBe('switchboard_token_4001_x');
    expect(tokenCookie(a, 'tok')).toBe(`${a}=tok; HttpOnly; SameSite=Strict; Path=/`);
  });

  it("takes its instance id from the launch token: a new token is a new name, the same token (a restart) the same name, and the name does not carry the token", () => {
    const t1 = 'a'.repeat(64);
    const t2 = 'b'.repeat(64);
    expect(instanceIdOf(t1)).toMatch(/^[0-9a-f]{12}$/);
    expect(instanceIdOf(t1)).toBe(instanceIdOf(t1));
    expect(instanceIdOf(t1)).not.toBe(instanceIdOf(t2));
    expect(tokenCookieName(4000, instanceIdOf(t1))).not.toContain(t1.slice(0, 12));
  });

  it("accepts only the instance's own cookie", () => {
    const hosts = new Set(['127.0.0.1:4000']);
    const origins = new Set(['http://127.0.0.1:4000']);
    const input = (cookie: string) => ({ host: '127.0.0.1:4000', origin: undefined, cookie, headerToken: undefined, queryToken: null, requireOrigin: false });
    const mine = tokenCookieName(4000);
    const other = tokenCookieName(4001);
    expect(checkRequest(input(`${other}=tok2; ${mine}=tok`), 'tok', hosts, origins, mine)).toEqual({ ok: true, via: 'cookie' });
    expect(checkRequest(input(`${other}=tok`), 'tok', hosts, origins, mine)).toMatchObject({ ok: false, status: 401 });
  });
});
