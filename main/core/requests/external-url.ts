/**
 * Which URLs Switchboard will open outside itself. Server-supplied URLs are hostile input:
 * a `javascript:`, `data:` or `file:` URL from a server became code execution in another
 * inspector (CVE-2025-58444). Elicitation URLs must be https; OAuth authorization URLs may
 * also be http on loopback (local development servers).
 */
import { isLoopbackHost } from '../../../contract/sign-in-url';

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

export function checkExternalUrl(raw: string, options: { allowLoopbackHttp?: boolean } = {}): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `Not a valid URL: "${raw.slice(0, 200)}"` };
  }
  if (url.protocol === 'https:') return url.username || url.password ? { ok: false, reason: 'Refusing a URL with embedded credentials.' } : { ok: true, url };
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && options.allowLoopbackHttp && loopback) return { ok: true, url };
  return { ok: false, reason: `Refusing to open a ${url.protocol} URL: only https: links are opened${options.allowLoopbackHttp ? ' (and http: on this machine)' : ''}.` };
}
