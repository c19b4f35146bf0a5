/**
 * MCP Apps: the sandbox proxy page builder (main/adapters/shared/app-sandbox.ts) and the plain
 * logic of Electron's `switchboard-app` scheme (main/adapters/electron/app-sandbox.ts): origins
 * and features embedded and escaped (hostile values cannot leave their attribute), the
 * diagnostics script injected in the right place with and without doctype and head, the router,
 * the registration checks, the frame-navigation rule, and our renderer CSP's frame-src.
 */
import { describe, expect, it } from 'vitest';
import {
  DIAGNOSTICS_SCRIPT,
  MAX_SANDBOX_PAGES,
  SANDBOX_PROXY_SCRIPT,
  SandboxPages,
  checkHostOrigin,
  escapeAttribute,
  injectDiagnostics,
  routeSandboxRequest,
  sandboxPageHtml,
} from '../../main/adapters/shared/app-sandbox';
import { contentSecurityPolicy } from '../../main/adapters/shared/csp';
import { SANDBOX_ORIGIN, createElectronSandbox, frameDepth, frameNavigationAllowed } from '../../main/adapters/electron/app-sandbox';
import { APP_SCHEME_PRIVILEGES, appResponseHeaders, registerScheme } from '../../main/adapters/electron/protocol';

const HOST = 'http://127.0.0.1:4567';
const TAG = '<script>D</script>';

/** The value of one `<meta name=…>` in a page, unescaped as a parser would. */
function metaContent(html: string, name: string): string | undefined {
  const match = new RegExp(`<meta name="${name}" content="([^"]*)">`).exec(html);
  return match?.[1]?.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

describe('the proxy page', () => {
  it('embeds the host origins and the granted features, and loads only /sandbox-proxy.js', () => {
    const html = sandboxPageHtml([HOST, 'http://localhost:4567'], ['camera', 'clipboard-write']);
    expect(metaContent(html, 'switchboard-host-origin')).toBe(`${HOST} http://localhost:4567`);
    expect(metaContent(html, 'switchboard-allow')).toBe('camera; clipboard-write');
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('<script src="/sandbox-proxy.js"></script>');
    expect(html.toLowerCase().startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/);
    expect(metaContent(sandboxPageHtml([HOST], []), 'switchboard-allow')).toBe('');
  });

  it('escapes what it embeds: a hostile feature list cannot leave its attribute', () => {
    const hostile = ['camera" onload="alert(1)', "x' autofocus onfocus='y", '><script>top.__pwned=1</script>', '`&amp;'];
    const html = sandboxPageHtml([HOST], hostile);
    expect(metaContent(html, 'switchboard-allow')).toBe(hostile.join('; '));
    expect(html.match(/<script/g)).toHaveLength(1);
    // The value ends where it should: nothing in it opens a tag or ends the attribute.
    expect(html.split('\n').filter((line) => line.startsWith('<meta name="switchboard-allow"'))[0]).toMatch(/^<meta name="switchboard-allow" content="[^"'<>`]*">$/);
    expect(escapeAttribute(`"'<>&\``)).toBe('&#34;&#39;&#60;&#62;&#38;&#96;');
  });

  it('embeds only real origins: anything else is refused, not escaped into the page', () => {
    for (const bad of ['http://127.0.0.1:4567/path', 'http://x"><script>', 'javascript:alert(1)', '*', "'self'", 'http://a b', '', 'http://127.0.0.1:4567 http://evil']) {
      expect(() => sandboxPageHtml([bad], []), bad).toThrow(/Not an origin/);
    }
    expect(checkHostOrigin('app://switchboard')).toBe('app://switchboard');
    expect(checkHostOrigin('http://[::1]:4567')).toBe('http://[::1]:4567');
  });

  it('has a script that parses, holds no closing script tag, and never widens the inner frame from a message', () => {
    expect(() => new Function(SANDBOX_PROXY_SCRIPT)).not.toThrow();
    expect(SANDBOX_PROXY_SCRIPT).not.toMatch(/<\/script/i);
    expect(DIAGNOSTICS_SCRIPT).not.toMatch(/<\/script/i);
    // The only sandbox and allow it sets: the fixed flags and the server-embedded features.
    expect(SANDBOX_PROXY_SCRIPT.match(/setAttribute\('sandbox', [^)]*\)/g)).toEqual(["setAttribute('sandbox', 'allow-scripts allow-forms')"]);
    expect(SANDBOX_PROXY_SCRIPT.match(/setAttribute\('allow', [^)]*\)/g)).toEqual(["setAttribute('allow', allow)"]);
    expect(SANDBOX_PROXY_SCRIPT).toContain("var allow = meta('switchboard-allow');");
    expect(SANDBOX_PROXY_SCRIPT).not.toMatch(/allow-same-origin|allow-top-navigation|allow-popups/);
  });
});

describe('injecting the diagnostics script', () => {
  const cases: Array<[string, string, string]> = [
    ['doctype and head', '<!doctype html><html><head><title>t</title></head><body>x</body></html>', `<!doctype html><html><head>${TAG}<title>t</title></head><body>x</body></html>`],
    ['a head with attributes', '<html lang="en"><HEAD data-x="1"><meta charset="utf-8"></head></html>', `<html lang="en"><HEAD data-x="1">${TAG}<meta charset="utf-8"></head></html>`],
    ['doctype, no head', '<!DOCTYPE html>\n<html><body>x</body></html>', `<!DOCTYPE html>${TAG}\n<html><body>x</body></html>`],
    ['a BOM and blank lines before the doctype', '\uFEFF\n  <!doctype html><body>x</body>', `\uFEFF\n  <!doctype html>${TAG}<body>x</body>`],
    ['a fragment', '<p>just a fragment</p>', `${TAG}<p>just a fragment</p>`],
    ['empty', '', TAG],
    ['<header> is not <head>', '<!doctype html><header>h</header>', `<!doctype html>${TAG}<header>h</header>`],
    ['a fake head in a comment', '<!-- <head> --><html><head></head></html>', `${TAG}<!-- <head> --><html><head></head></html>`],
    ['a fake head in a script', '<!doctype html><script>"<head>"</script><head></head>', `<!doctype html>${TAG}<script>"<head>"</script><head></head>`],
    ['a head after the body began', '<body><head></head></body>', `${TAG}<body><head></head></body>`],
  ];
  for (const [name, html, expected] of cases) it(name, () => expect(injectDiagnostics(html, 'D')).toBe(expected));

  it('is the very function the proxy runs', () => {
    expect(SANDBOX_PROXY_SCRIPT).toContain(`function injectDiagnostics(html, script) {`);
    expect(SANDBOX_PROXY_SCRIPT).toContain('inner.srcdoc = injectDiagnostics(html, diagnostics);');
  });
});

describe('routing a sandbox request', () => {
  const page = { instanceId: 'abc', csp: "default-src 'none'", allow: ['geolocation'] };
  const route = (method: string, pathname: string, origins = [HOST]) => routeSandboxRequest({ method, pathname }, '/sandbox/', (id) => (id === 'abc' ? page : undefined), origins);

  it('serves the page with its CSP first and the framing policy second', () => {
    const answer = route('GET', '/sandbox/abc');
    expect(answer.status).toBe(200);
    expect(answer.headers.filter(([name]) => name === 'content-security-policy').map(([, value]) => value)).toEqual(["default-src 'none'", `frame-ancestors ${HOST}`]);
    expect(answer.body).toBe(sandboxPageHtml([HOST], ['geolocation']));
  });

  it('404s, 405s and serves nothing without a host origin', () => {
    expect(route('GET', '/sandbox/zzz').status).toBe(404);
    expect(route('GET', '/sandbox/a.b').status).toBe(404);
    expect(route('GET', '/abc').status).toBe(404);
    expect(route('GET', '/sandbox/abc', []).status).toBe(404);
    expect(route('PUT', '/sandbox/abc').status).toBe(405);
    expect(route('GET', '/sandbox-proxy.js').body).toBe(SANDBOX_PROXY_SCRIPT);
    expect(route('HEAD', '/sandbox-proxy.js').body).toBe('');
  });
});

describe('registering pages', () => {
  it('keeps a copy, and refuses bad ids, multi-line policies, unknown features and too many pages', () => {
    const pages = new SandboxPages();
    const allow = ['camera'];
    pages.add({ instanceId: 'one', csp: "default-src 'none'", allow });
    allow.push('microphone');
    expect(pages.get('one')?.allow).toEqual(['camera']);
    expect(() => pages.add({ instanceId: 'a/b', csp: 'x', allow: [] })).toThrow();
    expect(() => pages.add({ instanceId: 'x'.repeat(65), csp: 'x', allow: [] })).toThrow();
    expect(() => pages.add({ instanceId: 'two', csp: "default-src 'none'\nx: y", allow: [] })).toThrow(/one line/);
    expect(() => pages.add({ instanceId: 'two', csp: '', allow: [] })).toThrow();
    expect(() => pages.add({ instanceId: 'two', csp: 'x', allow: ['clipboardWrite'] })).toThrow(/clipboardWrite/);
    for (let i = pages.size; i < MAX_SANDBOX_PAGES; i++) pages.add({ instanceId: `p${i}`, csp: 'x', allow: [] });
    expect(() => pages.add({ instanceId: 'one-too-many', csp: 'x', allow: [] })).toThrow(/at most 1,000/);
    pages.add({ instanceId: 'one', csp: "default-src 'self'", allow: [] }); // replacing one is fine
    pages.delete('one');
    expect(pages.get('one')).toBeUndefined();
  });
});

describe('Electron: the switchboard-app scheme', () => {
  const csp = "default-src 'none'; script-src 'unsafe-inline' switchboard-app://sandbox/sandbox-proxy.js";

  it('serves registered pages at switchboard-app://sandbox/<id>, talking only to the renderer origin', async () => {
    const sandbox = createElectronSandbox('app://switchboard');
    expect(sandbox.origin).toBe(SANDBOX_ORIGIN);
    const url = sandbox.register({ instanceId: 'inst-1', csp, allow: [] });
    expect(url).toBe('switchboard-app://sandbox/inst-1');
    const ok = sandbox.handle(new Request(url));
    expect(ok.status).toBe(200);
    // Two policies in one header, comma-separated: both are enforced.
    expect(ok.headers.get('content-security-policy')).toBe(`${csp}, frame-ancestors app://switchboard`);
    expect(ok.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(metaContent(await ok.text(), 'switchboard-host-origin')).toBe('app://switchboard');
    const script = sandbox.handle(new Request('switchboard-app://sandbox/sandbox-proxy.js'));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe(SANDBOX_PROXY_SCRIPT);
    expect(sandbox.handle(new Request(url, { method: 'HEAD' })).body).toBeNull();
  });

  it('404s other hosts, unknown and unregistered ids; 405s other methods', () => {
    const sandbox = createElectronSandbox('app://switchboard');
    sandbox.register({ instanceId: 'inst-2', csp, allow: [] });
    expect(sandbox.handle(new Request('switchboard-app://other/inst-2')).status).toBe(404);
    expect(sandbox.handle(new Request('switchboard-app://sandbox/nope')).status).toBe(404);
    expect(sandbox.handle(new Request('switchboard-app://sandbox/inst-2', { method: 'POST', body: 'x' })).status).toBe(405);
    sandbox.unregister('inst-2');
    expect(sandbox.handle(new Request('switchboard-app://sandbox/inst-2')).status).toBe(404);
  });

  it('registers the sandbox scheme with the app scheme, in one call', () => {
    const calls: unknown[] = [];
    registerScheme({ registerSchemesAsPrivileged: (schemes) => calls.push(schemes) }, [{ scheme: 'switchboard-app', privileges: { standard: true, secure: true } }]);
    expect(calls).toEqual([[...APP_SCHEME_PRIVILEGES, { scheme: 'switchboard-app', privileges: { standard: true, secure: true } }]]);
  });

  it('lets the window frame the sandbox origin and nothing else', () => {
    const policy = appResponseHeaders('index.html')['content-security-policy']!;
    expect(policy.split('; ').filter((d) => d.startsWith('frame-src'))).toEqual(['frame-src switchboard-app://sandbox']);
  });

  it('keeps frames where they belong: ours on the sandbox origin, the app’s on its own document', () => {
    expect(frameNavigationAllowed({ url: 'switchboard-app://sandbox/inst-1', isMainFrame: false, depth: 1 })).toBe(true);
    expect(frameNavigationAllowed({ url: 'https://evil.example/', isMainFrame: false, depth: 1 })).toBe(false);
    expect(frameNavigationAllowed({ url: 'app://switchboard/index.html', isMainFrame: false, depth: 1 })).toBe(false);
    expect(frameNavigationAllowed({ url: 'not a url', isMainFrame: false, depth: 0 })).toBe(false);
    expect(frameNavigationAllowed({ url: 'about:srcdoc', isMainFrame: false, depth: 2 })).toBe(true);
    expect(frameNavigationAllowed({ url: 'https://evil.example/', isMainFrame: false, depth: 2 })).toBe(false);
    expect(frameNavigationAllowed({ url: 'data:text/html,x', isMainFrame: false, depth: 2 })).toBe(false);
    // What the app frames itself is held by its own CSP's frame-src.
    expect(frameNavigationAllowed({ url: 'https://declared.example/', isMainFrame: false, depth: 3 })).toBe(true);
    const main = { parent: null };
    const outer = { parent: main };
    expect([frameDepth(main), frameDepth(outer), frameDepth({ parent: outer }), frameDepth(null)]).toEqual([0, 1, 2, 0]);
  });
});

describe('our renderer CSP', () => {
  it('gains frame-src only when given a sandbox origin, and loosens nothing else', () => {
    const before = contentSecurityPolicy(['ws://127.0.0.1:1']);
    const after = contentSecurityPolicy(['ws://127.0.0.1:1'], ['http://127.0.0.1:2']);
    expect(before).not.toContain('frame-src');
    expect(after.split('; ').filter((d) => !d.startsWith('frame-src'))).toEqual(before.split('; '));
    expect(after).toContain('; frame-src http://127.0.0.1:2;');
  });
});
