/**
 * The MCP Apps CSP builder: declared domains in, the exact policy out; every hostile value
 * refused with its reason, none silently dropped; an empty declaration is the default policy.
 */
import { describe, expect, it } from 'vitest';
import { MAX_VALUES, buildAppCsp, checkOrigin } from '../../main/core/apps/csp';
import { isAppMimeType, permissionsOf, allowFeatures } from '../../main/core/apps/resource';
import { toolUiOf, visibleToApps } from '../../main/core/apps/tool-ui';

const PROXY = 'http://127.0.0.1:41234/sandbox-proxy.js';
const opts = { proxyScriptUrl: PROXY };
const DEFAULT =
  `default-src 'none'; script-src 'unsafe-inline' ${PROXY}; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; ` +
  "connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'; object-src 'none'; worker-src 'none'";

describe('buildAppCsp: what is declared', () => {
  it('an empty declaration is the default policy, exactly', () => {
    expect(buildAppCsp({}, opts)).toEqual({ policy: DEFAULT, refused: [] });
    expect(buildAppCsp({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, opts)).toEqual({ policy: DEFAULT, refused: [] });
  });

  it('every list in its directives, in order, lower-cased, without duplicates or a trailing slash', () => {
    const { policy, refused } = buildAppCsp(
      {
        resourceDomains: ['https://cdn.example.com', 'https://*.CloudFlare.com', 'https://cdn.example.com/'],
        connectDomains: ['https://api.example.com:8443', 'wss://live.example.com', 'http://localhost:3000', 'ws://127.0.0.1:9000'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://base.example.com'],
      },
      opts,
    );
    expect(refused).toEqual([]);
    expect(policy).toBe(
      `default-src 'none'; script-src 'unsafe-inline' ${PROXY} https://cdn.example.com https://*.cloudflare.com; style-src 'unsafe-inline' https://cdn.example.com https://*.cloudflare.com; ` +
        'img-src data: blob: https://cdn.example.com https://*.cloudflare.com; font-src data: https://cdn.example.com https://*.cloudflare.com; media-src data: blob: https://cdn.example.com https://*.cloudflare.com; ' +
        "connect-src https://api.example.com:8443 wss://live.example.com http://localhost:3000 ws://127.0.0.1:9000; frame-src https://www.youtube.com; base-uri https://base.example.com; form-action 'none'; object-src 'none'; worker-src 'none'",
    );
  });

  it('loopback http for resources too (a dev server), punycode names and IPv4 over https', () => {
    const { policy, refused } = buildAppCsp({ resourceDomains: ['http://localhost:5173', 'https://xn--bcher-kva.example', 'https://203.0.113.7:8443'] }, opts);
    expect(refused).toEqual([]);
    expect(policy).toContain(`script-src 'unsafe-inline' ${PROXY} http://localhost:5173 https://xn--bcher-kva.example https://203.0.113.7:8443;`);
  });

  it('refused values leave the rest of their list, and the policy never gets looser', () => {
    const { policy, refused } = buildAppCsp({ connectDomains: ["'unsafe-eval'", 'https://ok.example.com', '*'] }, opts);
    expect(policy).toBe(DEFAULT.replace("connect-src 'none'", 'connect-src https://ok.example.com'));
    expect(refused.map((r) => [r.directive, r.value])).toEqual([
      ['connect-src', "'unsafe-eval'"],
      ['connect-src', '*'],
    ]);
  });
});

describe('buildAppCsp: hostile values, each refused with its reason', () => {
  const cases: [string, string, RegExp][] = [
    ['resourceDomains', "'unsafe-eval'", /CSP keyword/],
    ['resourceDomains', "'unsafe-inline'", /CSP keyword/],
    ['resourceDomains', "'self'", /CSP keyword/],
    ['resourceDomains', "'none'", /CSP keyword/],
    ['resourceDomains', "'strict-dynamic'", /CSP keyword/],
    ['resourceDomains', "'nonce-abc123'", /CSP keyword/],
    ['resourceDomains', "'sha256-AAAA'", /CSP keyword/],
    ['resourceDomains', 'self', /CSP keyword/],
    ['resourceDomains', '*', /bare wildcard would allow every origin/],
    ['resourceDomains', 'https://*', /bare wildcard/],
    ['resourceDomains', '*.example.com', /not an origin of the form https:\/\/host/],
    ['resourceDomains', 'cdn.example.com', /not an origin of the form https:\/\/host/],
    ['resourceDomains', 'https:', /bare scheme \(https:\)/],
    ['resourceDomains', 'data:', /bare scheme \(data:\)/],
    ['resourceDomains', 'blob:', /bare scheme \(blob:\)/],
    ['resourceDomains', 'javascript:', /bare scheme \(javascript:\)/],
    ['resourceDomains', 'javascript:alert(1)', /not an origin of the form/],
    ['resourceDomains', 'https://cdn.example.com/lib.js', /has a path \(\/lib\.js\)/],
    ['resourceDomains', 'https://cdn.example.com?x=1', /has a query/],
    ['resourceDomains', 'https://cdn.example.com#top', /has a fragment/],
    ['resourceDomains', 'https://user:pw@cdn.example.com', /credentials/],
    ['resourceDomains', 'https://cdn.example.com https://evil.example', /whitespace/],
    ['resourceDomains', 'https://a.example\thttps://b.example', /control characters/],
    ['resourceDomains', 'https://a.example; script-src *', /whitespace|semicolon/],
    ['resourceDomains', 'https://a.example;script-src', /semicolon or comma/],
    ['resourceDomains', 'https://a.example,https://b.example', /semicolon or comma/],
    ['resourceDomains', '"https://a.example"', /quotes/],
    ['resourceDomains', "https://a.example'", /quotes/],
    ['resourceDomains', 'https://аpple.com', /non-ASCII/],
    ['resourceDomains', 'https://bücher.example', /non-ASCII/],
    ['resourceDomains', 'http://cdn.example.com', /only for localhost and 127\.0\.0\.1; use https/],
    ['resourceDomains', 'ftp://files.example.com', /scheme ftp: is not accepted/],
    ['resourceDomains', 'wss://live.example.com', /WebSocket origin belongs in connectDomains only/],
    ['resourceDomains', 'https://*.com', /whole top-level domain/],
    ['resourceDomains', 'https://a.*.example.com', /only as the first label/],
    ['resourceDomains', 'https://*.localhost', /wildcard on a loopback host/],
    ['resourceDomains', 'https://[::1]', /IPv6/],
    ['resourceDomains', 'https://cdn.example.com:99999', /port 99999 is out of range/],
    ['resourceDomains', 'https://cdn.example.com:*', /port is not a number/],
    ['resourceDomains', 'https://-bad-.example', /not a valid host name/],
    ['resourceDomains', 'https://a..example', /not a valid host name/],
    ['resourceDomains', '', /empty/],
    ['connectDomains', 'ws://live.example.com', /only for localhost and 127\.0\.0\.1; use wss/],
    ['connectDomains', 'http://192.168.1.10', /only for localhost/],
    ['frameDomains', 'data:', /bare scheme/],
    ['baseUriDomains', "'self'", /CSP keyword/],
  ];
  it.each(cases)('%s %j', (key, value, reason) => {
    const { policy, refused } = buildAppCsp({ [key]: [value] }, opts);
    expect(policy).toBe(DEFAULT);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.value).toBe(value);
    expect(refused[0]!.reason).toMatch(reason);
  });

  it('a value longer than 512 characters', () => {
    const long = `https://${Array.from({ length: 10 }, () => 'a'.repeat(60)).join('.')}.example`;
    const { policy, refused } = buildAppCsp({ resourceDomains: [long] }, opts);
    expect(policy).toBe(DEFAULT);
    expect(refused[0]!.reason).toMatch(/characters long; at most 512/);
    expect(refused[0]!.value.length).toBeLessThan(long.length);
  });

  it('at most 64 origins a list: the rest refused, each named', () => {
    const many = Array.from({ length: MAX_VALUES + 3 }, (_, i) => `https://h${i}.example.com`);
    const { policy, refused } = buildAppCsp({ connectDomains: many }, opts);
    expect(policy).toContain(`connect-src ${many.slice(0, MAX_VALUES).join(' ')};`);
    expect(refused.map((r) => r.value)).toEqual(many.slice(MAX_VALUES));
    expect(refused[0]!.reason).toBe('more than 64 origins were declared for connectDomains; Switchboard keeps the first 64');
  });

  it('a flood of bad values: 64 listed, then one line counts the rest', () => {
    const { refused } = buildAppCsp({ frameDomains: Array.from({ length: 10_000 }, () => '*') }, opts);
    expect(refused).toHaveLength(65);
    expect(refused.at(-1)).toEqual({ directive: 'frame-src', value: '(9936 more)', reason: '9936 more values of frameDomains were refused too (only the first 64 refusals are listed)' });
  });

  it('shapes that are not lists of strings', () => {
    const { policy, refused } = buildAppCsp({ connectDomains: 'https://a.example', resourceDomains: [42, null, { host: 'x' }], frameDomains: { 0: 'x' } } as never, opts);
    expect(policy).toBe(DEFAULT);
    expect(refused).toEqual([
      { directive: 'script-src, style-src, img-src, font-src, media-src', value: '42', reason: 'it is a number, not an origin' },
      { directive: 'script-src, style-src, img-src, font-src, media-src', value: 'null', reason: 'it is null, not an origin' },
      { directive: 'script-src, style-src, img-src, font-src, media-src', value: '(an object)', reason: 'it is an object, not an origin' },
      { directive: 'connect-src', value: 'https://a.example', reason: 'connectDomains must be a list of origins; it was a string, so nothing of it was used' },
      { directive: 'frame-src', value: '(an object)', reason: 'frameDomains must be a list of origins; it was an object, so nothing of it was used' },
    ]);
  });

  it('the proxy script URL must be nameable in a policy', () => {
    expect(() => buildAppCsp({}, { proxyScriptUrl: "http://127.0.0.1:1/x.js; script-src 'unsafe-eval'" })).toThrow(/cannot be named in a CSP/);
    expect(buildAppCsp({}, { proxyScriptUrl: 'switchboard-sandbox://apps/sandbox-proxy.js' }).policy).toContain("script-src 'unsafe-inline' switchboard-sandbox://apps/sandbox-proxy.js;");
  });

  it('checkOrigin returns the normalized source', () => {
    expect(checkOrigin('HTTPS://CDN.Example.COM/', false)).toBe('https://cdn.example.com');
    expect(checkOrigin('wss://x.example', true)).toBe('wss://x.example');
  });
});

describe('the rest of what main reads from a UI resource and a tool', () => {
  it('the app MIME type, whatever the case and spacing', () => {
    for (const ok of ['text/html;profile=mcp-app', 'TEXT/HTML; Profile=MCP-APP', 'text/html ; charset=utf-8; profile="mcp-app"']) expect(isAppMimeType(ok)).toBe(true);
    for (const no of ['text/html', 'text/plain;profile=mcp-app', 'text/html;profile=mcp-app2', 'text/html;xprofile=mcp-app', '']) expect(isAppMimeType(no)).toBe(false);
  });

  it('permissions: the known ones present; clipboardWrite maps to clipboard-write', () => {
    expect(permissionsOf({ camera: {}, microphone: true, geolocation: null, clipboardWrite: {}, usb: {} })).toEqual(['camera', 'microphone', 'clipboardWrite']);
    expect(permissionsOf('camera')).toEqual([]);
    expect(allowFeatures(['camera', 'clipboardWrite'])).toEqual(['camera', 'clipboard-write']);
  });

  it("a tool's _meta.ui: nested wins over flat; bad values ignored and described", () => {
    expect(toolUiOf({ _meta: { ui: { resourceUri: 'ui://a/x.html' }, 'ui/resourceUri': 'ui://b/y.html' } })).toEqual({ ui: { resourceUri: 'ui://a/x.html' }, problems: [] });
    expect(toolUiOf({ _meta: { 'ui/resourceUri': 'ui://b/y.html' } })).toEqual({ ui: { resourceUri: 'ui://b/y.html' }, problems: [] });
    expect(toolUiOf({ _meta: { ui: { resourceUri: 7 } } }).problems).toEqual(['_meta.ui.resourceUri is a number, not a string']);
    expect(toolUiOf({ _meta: { ui: { resourceUri: `ui://${'x'.repeat(2100)}` } } })).toEqual({ problems: ['_meta.ui.resourceUri is 2105 characters long (at most 2048)'] });
    expect(toolUiOf({ _meta: { ui: 'ui://x' } }).problems).toEqual(['_meta.ui is a string, not an object']);
    expect(toolUiOf({ _meta: { ui: { visibility: ['app', 'app', 'model'] } } })).toEqual({ ui: { visibility: ['app', 'model'] }, visibility: ['app', 'model'], problems: [] });
    expect(toolUiOf({ _meta: { ui: { visibility: 'app' } } })).toEqual({ ui: { visibility: [] }, visibility: [], problems: ['_meta.ui.visibility is a string, not a list'] });
    expect(toolUiOf({ _meta: null })).toEqual({ problems: [] });
  });

  it('visible to apps: absent, or naming app', () => {
    expect(visibleToApps(undefined)).toBe(true);
    expect(visibleToApps(['model', 'app'])).toBe(true);
    expect(visibleToApps(['app'])).toBe(true);
    expect(visibleToApps(['model'])).toBe(false);
    expect(visibleToApps([])).toBe(false);
  });
});
