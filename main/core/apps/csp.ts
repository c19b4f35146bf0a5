/**
 * MCP Apps: the Content-Security-Policy an app runs under, built from what its UI resource
 * declared (`_meta.ui.csp`). The result is the exact header the sandbox proxy page is served
 * with; the app's srcdoc frame inherits it, so this is the whole of what the app may load or
 * reach. Restrictive by default and never looser than declared: every declared value must be a
 * plain origin (scheme, host, optional port) or a wildcard subdomain of one; anything else is
 * refused and listed with a reason in words, never silently dropped.
 */
import type { AppCspDeclared } from '../../../contract';
import { kindOf } from './shape';

export interface CspRefusal {
  directive: string;
  value: string;
  reason: string;
}

export interface AppCsp {
  policy: string;
  refused: CspRefusal[];
}

/** Declared values kept per directive; the rest are refused (each named, up to REFUSALS_LISTED). */
export const MAX_VALUES = 64;
/** Characters of one declared value. */
export const MAX_VALUE_CHARS = 512;
/** Refusals listed one by one per declared list; beyond it, one line counts the rest. */
const REFUSALS_LISTED = 64;
/** How much of a refused value is quoted back. */
const QUOTED_CHARS = 200;

type DeclaredKey = keyof AppCspDeclared;

/** Which declared list feeds which directives, and which schemes make sense there. */
const SOURCES: Record<DeclaredKey, { directives: string[]; websocket: boolean }> = {
  resourceDomains: { directives: ['script-src', 'style-src', 'img-src', 'font-src', 'media-src'], websocket: false },
  connectDomains: { directives: ['connect-src'], websocket: true },
  frameDomains: { directives: ['frame-src'], websocket: false },
  baseUriDomains: { directives: ['base-uri'], websocket: false },
};
const DECLARED_KEYS = Object.keys(SOURCES) as DeclaredKey[];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);
const KEYWORDS = /^'?(self|none|unsafe-[a-z-]+|strict-dynamic|report-sample|wasm-unsafe-eval|nonce-.*|sha(256|384|512)-.*)'?$/i;
const BARE_SCHEME = /^[a-z][a-z0-9+.-]*:$/i;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The policy for one app. `proxyScriptUrl` is the sandbox proxy's own script (`/sandbox-proxy.js`
 * on the sandbox origin): named by its exact URL, because a hash or a nonce in script-src would
 * switch off the app's own `'unsafe-inline'` scripts.
 */
export function buildAppCsp(declared: AppCspDeclared, opts: { proxyScriptUrl: string }): AppCsp {
  const proxy = checkProxyUrl(opts.proxyScriptUrl);
  const refused: CspRefusal[] = [];
  const accepted = {} as Record<DeclaredKey, string[]>;
  const raw = (declared ?? {}) as Record<string, unknown>;
  for (const key of DECLARED_KEYS) accepted[key] = acceptList(key, raw[key], refused);
  const resources = accepted.resourceDomains;
  const list = (fixed: string[], extra: string[]) => [...fixed, ...extra].join(' ');
  const directives: [string, string][] = [
    // Nothing that is not named below: a fetch kind we forgot stays closed.
    ['default-src', "'none'"],
    // The app is inline HTML with inline scripts (srcdoc); its own bundles come from the declared
    // origins; the proxy's one script by its exact URL. No 'unsafe-eval': eval, new Function and
    // string timers stay off.
    ['script-src', list(["'unsafe-inline'", proxy], resources)],
    // Inline styles are how a single-file app styles itself.
    ['style-src', list(["'unsafe-inline'"], resources)],
    // data:/blob: images, fonts and media are the app's own bytes (canvas exports, embedded fonts), not a network fetch.
    ['img-src', list(['data:', 'blob:'], resources)],
    ['font-src', list(['data:'], resources)],
    ['media-src', list(['data:', 'blob:'], resources)],
    // fetch, XHR, WebSocket, EventSource: only what was declared, else nothing.
    ['connect-src', accepted.connectDomains.length ? accepted.connectDomains.join(' ') : "'none'"],
    ['frame-src', accepted.frameDomains.length ? accepted.frameDomains.join(' ') : "'none'"],
    // No <base> pointing relative URLs elsewhere unless declared.
    ['base-uri', accepted.baseUriDomains.length ? accepted.baseUriDomains.join(' ') : "'none'"],
    // A form post is a navigation that leaves the sandbox: never (apps talk to servers through the bridge).
    ['form-action', "'none'"],
    // Plugins: never.
    ['object-src', "'none'"],
    // Workers run scripts CSP's script-src would not see the same way (blob: workers); apps do not need them.
    ['worker-src', "'none'"],
  ];
  return { policy: directives.map(([name, value]) => `${name} ${value}`).join('; '), refused };
}

/** One declared list: the values that pass, in order, without duplicates; refusals appended. */
function acceptList(key: DeclaredKey, value: unknown, refused: CspRefusal[]): string[] {
  if (value === undefined || value === null) return [];
  const directive = SOURCES[key].directives.join(', ');
  if (!Array.isArray(value)) {
    refused.push({ directive, value: quote(value), reason: `${key} must be a list of origins; it was ${kindOf(value)}, so nothing of it was used` });
    return [];
  }
  const kept: string[] = [];
  let listed = 0;
  let unlisted = 0;
  const refuse = (item: unknown, reason: string) => {
    if (listed < REFUSALS_LISTED) {
      refused.push({ directive, value: quote(item), reason });
      listed++;
    } else unlisted++;
  };
  for (const item of value) {
    if (typeof item !== 'string') {
      refuse(item, `it is ${kindOf(item)}, not an origin`);
      continue;
    }
    const checked = checkOrigin(item, SOURCES[key].websocket);
    if (typeof checked !== 'string') {
      refuse(item, checked.reason);
      continue;
    }
    if (kept.includes(checked)) continue;
    if (kept.length >= MAX_VALUES) {
      refuse(item, `more than ${MAX_VALUES} origins were declared for ${key}; Switchboard keeps the first ${MAX_VALUES}`);
      continue;
    }
    kept.push(checked);
  }
  if (unlisted > 0) refused.push({ directive, value: `(${unlisted} more)`, reason: `${unlisted} more values of ${key} were refused too (only the first ${REFUSALS_LISTED} refusals are listed)` });
  return kept;
}

/** A declared value as the origin source it becomes (lower case, no trailing slash), or why not. */
export function checkOrigin(value: string, websocket: boolean): string | { reason: string } {
  const no = (reason: string) => ({ reason });
  if (value.length === 0) return no('it is empty');
  if (value.length > MAX_VALUE_CHARS) return no(`it is ${value.length} characters long; at most ${MAX_VALUE_CHARS} are accepted`);
  if (/[\u0000-\u001f\u007f]/.test(value)) return no('it contains control characters');
  if (/[^\u0020-\u007e]/.test(value)) return no('it contains non-ASCII characters (a look-alike name is refused; write an internationalized name in its xn-- form)');
  if (/\s/.test(value)) return no('it contains whitespace, which would add another source to the policy');
  if (/[;,]/.test(value)) return no('it contains a semicolon or comma, which would end the directive or the policy');
  if (KEYWORDS.test(value)) return no(`it is a CSP keyword (${value}), not an origin; keywords are Switchboard's to choose`);
  if (/['"`]/.test(value)) return no('it contains quotes; an origin never does');
  if (value === '*' || /^\*[:/]|^[a-z]+:\/\/\*$/i.test(value)) return no('a bare wildcard would allow every origin');
  if (BARE_SCHEME.test(value)) return no(`a bare scheme (${value}) would allow every URL of that kind`);
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/i.exec(value);
  if (!match) return no('it is not an origin of the form https://host[:port]');
  const scheme = match[1]!.toLowerCase();
  const authority = match[2]!;
  const rest = match[3]!;
  if (rest.includes('?')) return no('it has a query; an origin is scheme, host and port only');
  if (rest.includes('#')) return no('it has a fragment; an origin is scheme, host and port only');
  if (rest !== '' && rest !== '/') return no(`it has a path (${rest.slice(0, 60)}); an origin is scheme, host and port only`);
  if (authority.includes('@')) return no('it carries credentials (user@host)');
  if (authority.startsWith('[')) return no('IPv6 literals are not accepted');
  const hostPort = /^(\*\.)?([^:]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!hostPort) return no('its port is not a number');
  const wildcard = hostPort[1] !== undefined;
  const host = hostPort[2]!.toLowerCase();
  const port = hostPort[3];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return no(`port ${port} is out of range`);
  if (host.includes('*')) return no('a wildcard is accepted only as the first label (https://*.example.com)');
  const labels = host.split('.');
  if (!labels.every((label) => LABEL.test(label))) return no(`"${host}" is not a valid host name`);
  const loopback = LOOPBACK_HOSTS.has(host);
  const secure = scheme === 'https' || scheme === 'wss';
  const plain = scheme === 'http' || scheme === 'ws';
  if (!secure && !plain) return no(`the scheme ${scheme}: is not accepted (https, or http only for localhost and 127.0.0.1${websocket ? '; wss, or ws for loopback' : ''})`);
  if ((scheme === 'wss' || scheme === 'ws') && !websocket) return no('a WebSocket origin belongs in connectDomains only');
  if (plain && !loopback) return no(`${scheme}:// is accepted only for localhost and 127.0.0.1; use ${scheme === 'http' ? 'https' : 'wss'}://`);
  if (wildcard && loopback) return no('a wildcard on a loopback host is not accepted');
  if (wildcard && labels.length < 2) return no(`*.${host} would cover a whole top-level domain`);
  if (/^\d+$/.test(labels.at(-1)!) && !/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return no(`"${host}" is not a valid host name`);
  if (wildcard && /^\d+$/.test(labels.at(-1)!)) return no('a wildcard on an IP address is not accepted');
  return `${scheme}://${wildcard ? '*.' : ''}${host}${port !== undefined ? `:${port}` : ''}`;
}

function checkProxyUrl(url: string): string {
  // http(s) in browser mode, Electron's own scheme there: scheme://host[:port]/path, nothing a policy would read as syntax.
  if (!/^[a-z][a-z0-9+.-]*:\/\/[a-z0-9.-]+(:\d{1,5})?\/[A-Za-z0-9._~/-]*$/i.test(url)) {
    throw new Error(`The sandbox proxy script URL ${JSON.stringify(url.slice(0, 200))} cannot be named in a CSP.`);
  }
  return url;
}

function quote(value: unknown): string {
  // Only a string or a primitive is quoted: a hostile object is described, never serialized.
  const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? `(${kindOf(value)})` : String(value);
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}… (${text.length} characters)` : text;
}
