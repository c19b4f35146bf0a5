/**
 * MCP Apps: the sandbox proxy page both carriers serve (browser mode on a second loopback
 * origin, Electron on `switchboard-app://sandbox`). Pure functions and text: the page, its one
 * script, the diagnostics script it prepends to an app's HTML, the response headers, and the
 * router both carriers put in front of them.
 *
 * The double iframe (spec 2026-01-26, "sandbox proxy"): Switchboard's renderer frames this page
 * (outer frame, an origin that is not ours); the page creates the inner
 * `<iframe sandbox="allow-scripts allow-forms" srcdoc=…>` with the app's HTML (an opaque
 * origin: it can read nothing of either page) and relays JSON-RPC messages both ways unchanged.
 * The app's Content-Security-Policy is the page's header, which the srcdoc child inherits.
 */
import { APP_BRIDGE_BUDGET, APP_DIAGNOSTIC_METHOD, APP_OVER_BUDGET_METHOD } from '../../../contract/app-sandbox';
import { SANDBOX_PROXY_SCRIPT_PATH, type SandboxPage } from '../../core/apps/sandbox-host';

/** Permission-policy features a page may be registered with (after the person's consent). */
export const SANDBOX_FEATURES = ['camera', 'microphone', 'geolocation', 'clipboard-write'] as const;

/** Instance ids are path segments: 1–64 URL-safe characters (the core draws 128-bit random ones). */
const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The most pages one sandbox host serves at once (a registration beyond it is refused). */
export const MAX_SANDBOX_PAGES = 1_000;

/** Throws on a page the carrier must not serve: a bad id, a header that is not one line, an unknown feature. */
export function checkSandboxPage(page: SandboxPage): void {
  if (!INSTANCE_ID.test(page.instanceId)) throw new Error('A sandbox page id is 1–64 letters, digits, "-" or "_".');
  if (typeof page.csp !== 'string' || page.csp.length === 0 || page.csp.length > 64_000 || /[^\x20-\x7e]/.test(page.csp)) {
    throw new Error('A sandbox page needs a Content-Security-Policy of printable ASCII on one line (at most 64,000 characters).');
  }
  for (const feature of page.allow) {
    if (!(SANDBOX_FEATURES as readonly string[]).includes(feature)) throw new Error(`"${String(feature)}" is not a permission a sandbox page may be given.`);
  }
}

/** An origin as `scheme://host[:port]`, exactly as a browser serializes it, or an error. */
export function checkHostOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new Error(`Not an origin: ${JSON.stringify(origin)}`);
  }
  // A standard custom scheme (app://switchboard) has a host but Node reports its origin as "null".
  const serialized = url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`;
  if (serialized !== origin || !url.host) throw new Error(`Not an origin: ${JSON.stringify(origin)}`);
  return origin;
}

/** Text for an HTML attribute value in double quotes: nothing in it can end the attribute or the tag. */
export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The proxy page: no inline script or style (its CSP is the app's), the host origins and the
 * granted features in `<meta>` (the server's word; no message can change them), and the script
 * from the sandbox origin.
 */
export function sandboxPageHtml(hostOrigins: readonly string[], allow: readonly string[]): string {
  const origins = hostOrigins.map(checkHostOrigin).join(' ');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta name="switchboard-host-origin" content="${escapeAttribute(origins)}">`,
    `<meta name="switchboard-allow" content="${escapeAttribute(allow.join('; '))}">`,
    '<title>Switchboard app sandbox</title>',
    `<script src="${SANDBOX_PROXY_SCRIPT_PATH}"></script>`,
    '</head><body></body></html>',
    '',
  ].join('\n');
}

/**
 * Runs first inside the app's frame and reports to the proxy (its parent, the sandbox origin):
 * console.error/warn, uncaught errors, unhandled rejections, CSP violations. Cooperative: an app
 * can silence it; the policy itself is enforced by the browser either way. `__SANDBOX_ORIGIN__`
 * is replaced by the proxy with its own origin (JSON).
 */
export const DIAGNOSTICS_SCRIPT = `(function(){var o=__SANDBOX_ORIGIN__,p=window.parent,c=console;
function f(v){try{if(v instanceof Error)return v.stack||String(v);if(typeof v==='string')return v;return JSON.stringify(v)}catch(e){return String(v)}}
function s(k,l,t){try{p.postMessage({jsonrpc:'2.0',method:'${APP_DIAGNOSTIC_METHOD}',params:{kind:k,level:l,text:String(t).slice(0,4000)}},o)}catch(e){}}
['error','warn'].forEach(function(m){var g=c[m];c[m]=function(){s('console',m==='warn'?'warning':'error',Array.prototype.map.call(arguments,f).join(' '));return g.apply(c,arguments)}});
addEventListener('error',function(e){s('console','error',(e.message||'Error')+(e.filename?' ('+e.filename+':'+e.lineno+')':''))});
addEventListener('unhandledrejection',function(e){s('console','error','Unhandled rejection: '+f(e.reason))});
addEventListener('securitypolicyviolation',function(e){s('csp','error','Blocked by the app\\'s Content-Security-Policy ('+e.effectiveDirective+'): '+(e.blockedURI||'inline'))});
})();`;

/**
 * The app's HTML with the diagnostics script first: right after `<head …>` when the document
 * opens with one (no comment, script or body before it that could hide a fake one), else right
 * after a leading doctype (so standards mode is kept), else at the very start. Written once, as
 * the JavaScript the proxy runs; Node gets the same text as a function (tests use it).
 */
const INJECT_DIAGNOSTICS_JS = `function injectDiagnostics(html, script) {
    var tag = '<script>' + script + '</' + 'script>';
    var head = /<head(?:\\s[^>]*)?>/i.exec(html);
    if (head && !/<!--|<script|<body|<template|<textarea|<style|<title|<noscript|<xmp|<plaintext/i.test(html.slice(0, head.index))) {
      var end = head.index + head[0].length;
      return html.slice(0, end) + tag + html.slice(end);
    }
    var doctype = /^\\uFEFF?\\s*<!doctype[^>]*>/i.exec(html);
    if (doctype) return html.slice(0, doctype[0].length) + tag + html.slice(doctype[0].length);
    return tag + html;
  }`;

export const injectDiagnostics = new Function(`return ${INJECT_DIAGNOSTICS_JS}`)() as (html: string, script: string) => string;

/**
 * The proxy page's script (served as `/sandbox-proxy.js`). It runs only framed; it talks only
 * to its parent and only when the parent's origin is one the server embedded; it loads one
 * resource per page; it relays everything else unchanged; if the app's frame navigates away
 * from its own document, the frame is removed (whatever loaded there is not the app).
 *
 * What the app sends is held to APP_BRIDGE_BUDGET here, in the sandbox origin's process:
 * over it, messages are counted instead of relayed, and the host gets one over-budget report
 * per `reportEvery` dropped (or `reportMs` after the first), which the host counts as its own
 * drops. Without this a runaway loop's every message went on to Switchboard's page (the
 * hostile app's e2e counts what arrives there).
 */
export const SANDBOX_PROXY_SCRIPT = `'use strict';
(function () {
  var READY = 'ui/notifications/sandbox-proxy-ready';
  var RESOURCE = 'ui/notifications/sandbox-resource-ready';
  if (window.top === window || window.parent === window) {
    document.addEventListener('DOMContentLoaded', function () { document.body.textContent = 'This page runs only inside Switchboard.'; });
    return;
  }
  function meta(name) {
    var m = document.querySelector('meta[name="' + name + '"]');
    return (m && m.getAttribute('content')) || '';
  }
  var origins = meta('switchboard-host-origin').split(/\\s+/).filter(Boolean);
  var allow = meta('switchboard-allow');
  if (origins.length === 0) return;
  var host = null;
  var ancestors = window.location.ancestorOrigins;
  if (ancestors && ancestors.length > 0) {
    if (origins.indexOf(ancestors[0]) < 0) return;
    host = ancestors[0];
  }
  var parent = window.parent;
  function toHost(message) {
    if (host) { parent.postMessage(message, host); return; }
    for (var i = 0; i < origins.length; i++) { try { parent.postMessage(message, origins[i]); } catch (e) {} }
  }
  function diagnostic(text) {
    toHost({ jsonrpc: '2.0', method: '${APP_DIAGNOSTIC_METHOD}', params: { kind: 'console', level: 'error', text: text } });
  }
  var inner = null;
  var closed = false;
  var diagnostics = ${JSON.stringify(DIAGNOSTICS_SCRIPT)}.replace('__SANDBOX_ORIGIN__', JSON.stringify(window.location.origin).replace(/</g, '\\\\u003c'));
  ${INJECT_DIAGNOSTICS_JS}
  function load(html) {
    inner = document.createElement('iframe');
    inner.setAttribute('sandbox', 'allow-scripts allow-forms');
    if (allow) inner.setAttribute('allow', allow);
    inner.setAttribute('title', 'MCP App');
    inner.style.cssText = 'border:0;margin:0;padding:0;width:100%;height:100%;display:block';
    var loads = 0;
    inner.addEventListener('load', function () {
      loads += 1;
      if (loads > 1 && !closed) {
        closed = true;
        inner.remove();
        diagnostic('The app navigated its frame away from its own document; the sandbox removed the frame.');
      }
    });
    inner.srcdoc = injectDiagnostics(html, diagnostics);
    document.body.appendChild(inner);
  }
  var tokens = ${APP_BRIDGE_BUDGET.burst};
  var refilledAt = Date.now();
  var dropped = 0;
  var firstDropped = '';
  var reportTimer = null;
  function take() {
    var now = Date.now();
    if (now > refilledAt) {
      tokens = Math.min(${APP_BRIDGE_BUDGET.burst}, tokens + ((now - refilledAt) * ${APP_BRIDGE_BUDGET.perSecond}) / 1000);
      refilledAt = now;
    }
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }
  function report() {
    if (reportTimer !== null) { clearTimeout(reportTimer); reportTimer = null; }
    if (dropped === 0 || !host) return;
    parent.postMessage({ jsonrpc: '2.0', method: '${APP_OVER_BUDGET_METHOD}', params: { dropped: dropped, first: firstDropped } }, host);
    dropped = 0;
    firstDropped = '';
  }
  function methodOf(data) {
    return data && typeof data === 'object' && typeof data.method === 'string' ? data.method : '';
  }
  function fromApp(data) {
    if (!take()) {
      if (dropped === 0) firstDropped = methodOf(data).slice(0, 200) || 'message';
      dropped += 1;
      if (dropped >= ${APP_BRIDGE_BUDGET.reportEvery}) report();
      else if (reportTimer === null) reportTimer = setTimeout(report, ${APP_BRIDGE_BUDGET.reportMs});
      return;
    }
    if (methodOf(data) === '${APP_OVER_BUDGET_METHOD}') {
      diagnostic('Not relayed: the app sent a message with the method ${APP_OVER_BUDGET_METHOD}, which only the sandbox proxy may send.');
      return;
    }
    parent.postMessage(data, host);
  }
  window.addEventListener('message', function (event) {
    if (inner && !closed && event.source === inner.contentWindow) {
      if (host) fromApp(event.data);
      return;
    }
    if (event.source !== parent || origins.indexOf(event.origin) < 0 || (host && event.origin !== host)) return;
    host = event.origin;
    var data = event.data;
    var isResource = data && typeof data === 'object' && data.jsonrpc === '2.0' && data.method === RESOURCE;
    if (!inner) {
      if (isResource && data.params && typeof data.params.html === 'string') load(data.params.html);
      return;
    }
    if (isResource || closed || !inner.contentWindow) return;
    inner.contentWindow.postMessage(data, '*');
  });
  var style = document.documentElement.style;
  style.height = '100%';
  style.overflow = 'hidden';
  function ready() {
    document.body.style.cssText = 'margin:0;height:100%;overflow:hidden';
    toHost({ jsonrpc: '2.0', method: READY, params: {} });
  }
  if (document.body) ready();
  else document.addEventListener('DOMContentLoaded', ready);
})();
`;

/** Headers every sandbox response carries. */
function commonHeaders(): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

/**
 * The page's headers: the app's policy exactly as the core built it, and a second policy
 * limiting who may frame the page (both are enforced; the srcdoc child inherits them).
 * Returned as a list of pairs because Content-Security-Policy appears twice.
 */
export function sandboxPageHeaders(page: SandboxPage, hostOrigins: readonly string[]): Array<[string, string]> {
  return [
    ['content-type', 'text/html; charset=utf-8'],
    ['content-security-policy', page.csp],
    ['content-security-policy', `frame-ancestors ${hostOrigins.map(checkHostOrigin).join(' ')}`],
    // Meant to be framed by another origin; CORP only matters if the renderer ever adopts COEP.
    ['cross-origin-resource-policy', 'cross-origin'],
    ...Object.entries(commonHeaders()),
  ];
}

export function sandboxScriptHeaders(): Array<[string, string]> {
  return [
    ['content-type', 'text/javascript; charset=utf-8'],
    ['cross-origin-resource-policy', 'same-origin'],
    ...Object.entries(commonHeaders()),
  ];
}

export interface SandboxResponse {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/**
 * One request to the sandbox origin, for both carriers: `GET|HEAD <prefix><id>` is a
 * registered page, `GET|HEAD /sandbox-proxy.js` the script, any other path 404, any other
 * method 405. `prefix` is `/sandbox/` in browser mode, `/` for Electron's scheme.
 */
export function routeSandboxRequest(
  request: { method: string; pathname: string },
  prefix: string,
  pageFor: (instanceId: string) => SandboxPage | undefined,
  hostOrigins: readonly string[],
): SandboxResponse {
  const plain = (status: number, text: string, extra: Array<[string, string]> = []): SandboxResponse => ({
    status,
    headers: [['content-type', 'text/plain; charset=utf-8'], ...Object.entries(commonHeaders()), ...extra],
    body: text,
  });
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed\n', [['allow', 'GET, HEAD']]);
  const head = request.method === 'HEAD';
  if (request.pathname === SANDBOX_PROXY_SCRIPT_PATH) return { status: 200, headers: sandboxScriptHeaders(), body: head ? '' : SANDBOX_PROXY_SCRIPT };
  if (request.pathname.startsWith(prefix)) {
    const id = request.pathname.slice(prefix.length);
    const page = INSTANCE_ID.test(id) ? pageFor(id) : undefined;
    if (page && hostOrigins.length > 0) {
      return { status: 200, headers: sandboxPageHeaders(page, hostOrigins), body: head ? '' : sandboxPageHtml(hostOrigins, page.allow) };
    }
  }
  return plain(404, 'Not found\n');
}

/** The registry both carriers keep: id → page, bounded. */
export class SandboxPages {
  private readonly pages = new Map<string, SandboxPage>();

  add(page: SandboxPage): void {
    checkSandboxPage(page);
    if (!this.pages.has(page.instanceId) && this.pages.size >= MAX_SANDBOX_PAGES) {
      throw new Error(`Switchboard serves at most ${MAX_SANDBOX_PAGES.toLocaleString('en-US')} app sandboxes at once; close some apps first.`);
    }
    this.pages.set(page.instanceId, { instanceId: page.instanceId, csp: page.csp, allow: [...page.allow] });
  }

  get(instanceId: string): SandboxPage | undefined {
    return this.pages.get(instanceId);
  }

  delete(instanceId: string): void {
    this.pages.delete(instanceId);
  }

  get size(): number {
    return this.pages.size;
  }
}
