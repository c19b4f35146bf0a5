/**
 * The MCP Apps sandbox by itself, in real Chromium and without Switchboard's UI: a tiny loopback
 * "host" page (served by this test, on its own origin) frames a real sandbox page from browser
 * mode's sandbox host (main/adapters/web/sandbox-host.ts), answers its sandbox-proxy-ready with
 * the app's HTML, and watches what crosses. A third loopback server ("elsewhere") is an origin
 * the app never declared: it counts every request that reaches it.
 *
 * Proved: the relay works both ways; an undeclared fetch is blocked and reported as a `csp`
 * diagnostic; console errors are reported; `parent.document`, `parent.parent.document`,
 * `top.location = …`, `parent.location = …`, `<a target=_top>`, a form to `_top`, `window.open`
 * and storage all fail (the top URL is unchanged, no page
 * opens, nothing reaches "elsewhere"); `top.__pwned` stays undefined; a resource-ready cannot
 * widen the inner frame's sandbox or permissions; a second resource-ready is ignored; an app
 * that navigates its frame away loses it; a foreign origin cannot frame the page; the page does
 * nothing when opened unframed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Frame, type Page } from '@playwright/test';
import { buildAppCsp } from '../../main/core/apps/csp';
import { SANDBOX_PROXY_SCRIPT_PATH } from '../../main/core/apps/sandbox-host';
import { startSandboxHost, type WebSandboxHost } from '../../main/adapters/web/sandbox-host';

type Message = { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown };

let sandbox: WebSandboxHost;
let hostServer: Server;
let hostOrigin: string;
let elsewhere: Server;
let elsewhereOrigin: string;
const elsewhereHits: string[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The policy the core builds for an app that declared one origin to connect to: the host page's (so a declared fetch works). */
function appCsp(): string {
  const csp = buildAppCsp({ connectDomains: [hostOrigin] }, { proxyScriptUrl: `${sandbox.origin}${SANDBOX_PROXY_SCRIPT_PATH}` });
  expect(csp.refused).toEqual([]);
  return csp.policy;
}

/**
 * The host page: a frame for the sandbox page, every message from the sandbox origin into
 * `__log`, and sandbox-proxy-ready answered with the app's HTML — and, to prove they are
 * ignored, a wider sandbox and more permissions than the page was registered with.
 */
const HOST_SCRIPT = `
window.__log = [];
window.__marker = 'the host page';
window.hostApp = function (url, html, sandboxOrigin) {
  var frame = document.createElement('iframe');
  frame.setAttribute('data-testid', 'app-frame');
  frame.allow = 'geolocation';
  frame.style.cssText = 'width:600px;height:300px;border:1px solid #999';
  window.post = function (message) { frame.contentWindow.postMessage(message, sandboxOrigin); };
  window.addEventListener('message', function (event) {
    if (event.origin !== sandboxOrigin || event.source !== frame.contentWindow) return;
    window.__log.push(event.data);
    if (event.data && event.data.method === 'ui/notifications/sandbox-proxy-ready') {
      window.post({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready',
        params: { html: html, sandbox: 'allow-scripts allow-same-origin allow-top-navigation allow-popups', permissions: { camera: {}, microphone: {} } } });
    }
  });
  frame.src = url;
  document.body.append(frame);
};`;

type HostGlobals = { __log: Message[]; __marker: string; __pwned?: unknown; hostApp(url: string, html: string, sandboxOrigin: string): void; post(message: Message): void };

test.beforeAll(async () => {
  sandbox = await startSandboxHost();
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head><body><h1>host</h1><script>${HOST_SCRIPT}</script></body></html>`;
  // Served like Switchboard's renderer is (no referrer, its own browsing context group).
  hostServer = createServer((req, res) => {
    if (req.url === '/declared') return void res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('declared answer');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer', 'cross-origin-opener-policy': 'same-origin' }).end(page);
  });
  hostOrigin = await listen(hostServer);
  elsewhere = createServer((req, res) => {
    elsewhereHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'access-control-allow-origin': '*' }).end('<!doctype html><title>elsewhere</title><body></body>');
  });
  elsewhereOrigin = await listen(elsewhere);
  sandbox.setHostOrigins([hostOrigin]);
});

test.afterAll(async () => {
  await sandbox?.close();
  hostServer?.closeAllConnections();
  elsewhere?.closeAllConnections();
  await new Promise((done) => hostServer?.close(done));
  await new Promise((done) => elsewhere?.close(done));
});

let nextId = 0;
function register(allow: string[] = []): string {
  nextId += 1;
  return sandbox.register({ instanceId: `e2e-${nextId}-${Date.now()}`, csp: appCsp(), allow });
}

async function hostApp(page: Page, url: string, html: string): Promise<void> {
  await page.goto(`${hostOrigin}/`);
  await page.evaluate(({ url, html, origin }) => (globalThis as unknown as HostGlobals).hostApp(url, html, origin), { url, html, origin: sandbox.origin });
}

function log(page: Page): Promise<Message[]> {
  return page.evaluate(() => (globalThis as unknown as HostGlobals).__log);
}

async function waitFor(page: Page, predicate: (m: Message) => boolean, what: string): Promise<Message> {
  await expect.poll(async () => (await log(page)).some(predicate), { message: `waiting for ${what}` }).toBe(true);
  return (await log(page)).find(predicate)!;
}

function post(page: Page, message: Message): Promise<void> {
  return page.evaluate((message) => (globalThis as unknown as HostGlobals).post(message), message);
}

function proxyFrame(page: Page): Frame {
  const frame = page.frames().find((f) => f.url().startsWith(`${sandbox.origin}/sandbox/`));
  if (!frame) throw new Error('the sandbox proxy frame is not there');
  return frame;
}

/** The proxy page's inner frames, as its DOM has them (Playwright reads the cross-origin frame). */
function innerFrames(page: Page): Promise<Array<{ sandbox: string | null; allow: string | null; srcdoc: string }>> {
  return proxyFrame(page).evaluate(
    "[...document.querySelectorAll('iframe')].map((f) => ({ sandbox: f.getAttribute('sandbox'), allow: f.getAttribute('allow'), srcdoc: f.srcdoc }))",
  );
}

const HOSTILE_APP = (elsewhereUrl: string, declaredUrl = `${hostOrigin}/declared`) => `<!doctype html>
<html><head><meta charset="utf-8"><title>hostile app</title></head>
<body><p>hostile app</p><script>
function send(m) { parent.postMessage(m, '*'); }
var r = {};
function attempt(name, f) { try { r[name] = f(); } catch (e) { r[name] = 'blocked: ' + e.name; } }
window.addEventListener('message', function (e) {
  var d = e.data;
  if (d && d.method === 'test/ping') send({ jsonrpc: '2.0', id: d.id, result: { pong: d.params.n } });
  if (d && d.method === 'test/navigate-away') location.replace('about:blank');
});
send({ jsonrpc: '2.0', method: 'test/hello', params: { origin: String(window.origin) } });
console.error('app says boom');
attempt('parentDocument', function () { return typeof parent.document.title; });
attempt('topDocument', function () { return typeof parent.parent.document.title; });
attempt('topNavigation', function () { top.location = ${JSON.stringify(elsewhereUrl + '/top')}; return 'no error'; });
attempt('parentNavigation', function () { parent.location = ${JSON.stringify(elsewhereUrl + '/parent')}; return 'no error'; });
attempt('linkTop', function () { var a = document.createElement('a'); a.href = ${JSON.stringify(elsewhereUrl + '/link')}; a.target = '_top'; document.body.appendChild(a); a.click(); return 'clicked'; });
attempt('formTop', function () { var f = document.createElement('form'); f.action = ${JSON.stringify(elsewhereUrl + '/form')}; f.method = 'get'; f.target = '_top'; document.body.appendChild(f); f.submit(); return 'submitted'; });
attempt('popup', function () { return window.open(${JSON.stringify(elsewhereUrl + '/popup')}) === null ? 'null' : 'a window'; });
attempt('pwned', function () { top.__pwned = 'yes'; return 'no error'; });
attempt('storage', function () { localStorage.setItem('x', '1'); return 'ok'; });
attempt('cookie', function () { document.cookie = 'x=1'; return document.cookie; });
attempt('camera', function () { return document.featurePolicy ? document.featurePolicy.allowsFeature('camera') : 'unknown'; });
fetch(${JSON.stringify(declaredUrl)}).then(function (res) { return res.text(); }).then(function (t) { r.declared = t; }, function (e) { r.declared = 'blocked: ' + e.name; })
  .then(function () { return fetch(${JSON.stringify(elsewhereUrl + '/steal')}); })
  .then(function () { r.fetch = 'ok'; }, function (e) { r.fetch = 'blocked: ' + e.name; })
  .then(function () { send({ jsonrpc: '2.0', method: 'test/results', params: r }); });
</script></body></html>`;

test('the sandbox relays, reports, and contains a hostile app', async ({ page, context }) => {
  const opened: string[] = [];
  context.on('page', (p) => opened.push(p.url()));
  const url = register(['geolocation']);
  await hostApp(page, url, HOSTILE_APP(elsewhereOrigin));

  // (a) the relay, app → host: the app's own message, unchanged, from an opaque origin.
  const hello = await waitFor(page, (m) => m.method === 'test/hello', 'the app’s hello');
  expect(hello).toEqual({ jsonrpc: '2.0', method: 'test/hello', params: { origin: 'null' } });

  const results = (await waitFor(page, (m) => m.method === 'test/results', 'the app’s results')).params!;
  // (b) the declared origin answers; an undeclared one: the fetch failed, the violation was reported, nothing reached it.
  expect(results['declared']).toBe('declared answer');
  expect(results['fetch']).toBe('blocked: TypeError');
  const csp = await waitFor(page, (m) => m.method === 'switchboard/diagnostic' && m.params?.['kind'] === 'csp', 'a CSP diagnostic');
  expect(csp.params).toMatchObject({ kind: 'csp', level: 'error' });
  expect(String(csp.params!['text'])).toContain('connect-src');
  expect(String(csp.params!['text'])).toContain(`${elsewhereOrigin}/steal`);
  const consoleError = await waitFor(page, (m) => m.method === 'switchboard/diagnostic' && m.params?.['kind'] === 'console', 'a console diagnostic');
  expect(consoleError.params).toEqual({ kind: 'console', level: 'error', text: 'app says boom' });

  // (c) no reach into either page, no top navigation, no popup, no storage.
  const blocked = 'blocked: SecurityError';
  // resource-ready asked for camera; the page was registered with geolocation only.
  expect(results).toMatchObject({ parentDocument: blocked, topDocument: blocked, topNavigation: blocked, parentNavigation: blocked, pwned: blocked, popup: 'null', storage: blocked, cookie: blocked, camera: false });

  // (a) the relay, host → app, and a round trip that orders everything the proxy did before it.
  await post(page, { jsonrpc: '2.0', id: 7, method: 'test/ping', params: { n: 7 } });
  expect(await waitFor(page, (m) => m.id === 7, 'the pong')).toEqual({ jsonrpc: '2.0', id: 7, result: { pong: 7 } });

  expect(page.url()).toBe(`${hostOrigin}/`);
  expect(await page.evaluate(() => (globalThis as unknown as HostGlobals).__marker)).toBe('the host page');
  // (d) the host page's globals are out of reach.
  expect(await page.evaluate(() => (globalThis as unknown as HostGlobals).__pwned)).toBeUndefined();
  expect(context.pages()).toHaveLength(1);
  expect(opened).toEqual([]);
  expect(elsewhereHits.filter((path) => ['/steal', '/top', '/popup', '/parent', '/link', '/form'].includes(path))).toEqual([]);

  // The inner frame is exactly as agreed, whatever the message asked for.
  const inner = await innerFrames(page);
  expect(inner.map(({ sandbox, allow }) => ({ sandbox, allow }))).toEqual([{ sandbox: 'allow-scripts allow-forms', allow: 'geolocation' }]);
  expect(await proxyFrame(page).evaluate("document.querySelector('meta[name=\"switchboard-host-origin\"]').getAttribute('content')")).toBe(hostOrigin);

  await page.screenshot({ path: 'test-results/screenshots/app-sandbox-hostile.png' });
});

test('one resource per page: a second resource-ready is ignored', async ({ page }) => {
  await hostApp(page, register(), HOSTILE_APP(elsewhereOrigin));
  await waitFor(page, (m) => m.method === 'test/results', 'the first app’s results');
  await post(page, { jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: { html: '<p>second</p><script>parent.postMessage({method:"test/second"},"*")</script>' } });
  await post(page, { jsonrpc: '2.0', id: 8, method: 'test/ping', params: { n: 8 } });
  await waitFor(page, (m) => m.id === 8, 'the first app’s pong');
  const inner = await innerFrames(page);
  expect(inner.map((f) => f.srcdoc.includes('second'))).toEqual([false]);
  expect((await log(page)).some((m) => m.method === 'test/second')).toBe(false);
});

test('an app that navigates its frame away loses it, and the host is told', async ({ page }) => {
  await hostApp(page, register(), HOSTILE_APP(elsewhereOrigin));
  await waitFor(page, (m) => m.method === 'test/results', 'the app’s results');
  await post(page, { jsonrpc: '2.0', method: 'test/navigate-away', params: {} });
  const said = await waitFor(page, (m) => m.method === 'switchboard/diagnostic' && String(m.params?.['text']).includes('navigated its frame away'), 'the sandbox’s word');
  expect(said.params).toMatchObject({ kind: 'console', level: 'error' });
  expect(await innerFrames(page)).toEqual([]);
});

test('the page can be framed only by the renderer, and does nothing unframed', async ({ page }) => {
  const url = register();
  // A page on another origin (here: the undeclared one) frames it: Chromium refuses (frame-ancestors).
  const refused = page.waitForEvent('console', (message) => /frame-ancestors/.test(message.text()));
  await page.goto(`${elsewhereOrigin}/`);
  await page.evaluate(`document.body.append(Object.assign(document.createElement('iframe'), { src: ${JSON.stringify(url)} }))`);
  expect((await refused).text()).toContain(hostOrigin);

  // Opened as a page of its own, it says so and posts nothing.
  await page.goto(url);
  await expect(page.locator('body')).toHaveText('This page runs only inside Switchboard.');
});
