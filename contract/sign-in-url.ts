/**
 * The one rule for opening a sign-in page, shared by the core (before any login window opens)
 * and the renderer (before its popup opens): https:, or http: to a loopback host only (a local
 * authorization server in development); no credentials in the URL. A `javascript:`, `data:` or
 * `file:` authorization endpoint is an attack on the client (CVE-2025-58444), not a login, and
 * a plain-http one elsewhere puts the password on the network in clear.
 */
export type SignInUrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

export function signInUrlVerdict(raw: string | URL): SignInUrlVerdict {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    return { ok: false, reason: `Refused to open the authorization URL: "${String(raw).slice(0, 100)}" is not a URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      reason: `Refused to open the authorization URL: its scheme is ${url.protocol} — only http: and https: are opened. The authorization server's metadata (authorization_endpoint) is wrong or hostile.`,
    };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      reason: `Refused to open the authorization URL: it is plain http: to ${url.hostname}. Only https: is opened, or http: to this machine (localhost, 127.0.0.1, [::1]).`,
    };
  }
  if (url.username || url.password) return { ok: false, reason: 'Refused to open the authorization URL: it carries a user name or password.' };
  return { ok: true, url };
}

/** A URL's (already normalized) host name that is this machine. Browser-safe: no node:net here. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
