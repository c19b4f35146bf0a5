/**
 * The one rule for opening a sign-in page, shared by the core (before any login window opens)
 * and the renderer (before its popup opens): http: and https: only, no credentials in the URL.
 * A `javascript:`, `data:` or `file:` authorization endpoint is an attack on the client
 * (CVE-2025-58444), not a login.
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
  if (url.username || url.password) return { ok: false, reason: 'Refused to open the authorization URL: it carries a user name or password.' };
  return { ok: true, url };
}
