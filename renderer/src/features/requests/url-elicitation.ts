/**
 * Server-supplied URLs (URL-mode elicitation, the `-32042` error) are hostile input: only https:
 * links are ever opened, only after the person consented, and the host is shown on its own so a
 * look-alike is easier to spot. No React here: usable from any view (and from tests).
 */
import type { ErrorDetail, RequiredElicitation } from '../../../../contract';
import type { SwitchboardApi } from '../../../../contract/client';

/** JSON-RPC `-32042`: URL elicitation required (2025 era). */
const URL_ELICITATION_REQUIRED = -32042;

export interface UrlParts {
  href: string;
  /** `https://` */
  scheme: string;
  /** `user:password@` when present (refused, but shown). */
  credentials: string;
  /** The host as the browser will use it (IDN in punycode: look-alikes show as xn--…). */
  host: string;
  port: string;
  /** Path, query and fragment. */
  rest: string;
}

export type UrlVerdict = { ok: true; parts: UrlParts } | { ok: false; reason: string; parts?: UrlParts };

export function inspectUrl(raw: string): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'This is not a valid URL.' };
  }
  const parts: UrlParts = {
    href: url.href,
    scheme: `${url.protocol}${url.host ? '//' : ''}`,
    credentials: url.username || url.password ? `${url.username}${url.password ? ':•••' : ''}@` : '',
    host: url.hostname,
    port: url.port ? `:${url.port}` : '',
    rest: `${url.pathname}${url.search}${url.hash}`,
  };
  if (url.protocol !== 'https:') return { ok: false, reason: `Refused: the link uses ${url.protocol} — Switchboard only opens https: links from servers.`, parts };
  if (url.username || url.password) return { ok: false, reason: 'Refused: the link carries a user name or password, a common way to disguise where it goes.', parts };
  if (!url.hostname) return { ok: false, reason: 'Refused: the link has no host.', parts };
  return { ok: true, parts };
}

/**
 * Opens an https link the person agreed to open: the system browser in Electron; in browser
 * mode main cannot, so the page opens it (a new tab without a reference back to this page).
 */
export async function openConsented(api: SwitchboardApi, url: string): Promise<void> {
  const verdict = inspectUrl(url);
  if (!verdict.ok) throw new Error(verdict.reason);
  const { opened } = await api.openExternal({ url: verdict.parts.href });
  // (typed through globalThis: this file is also compiled for Node tests, without the DOM lib)
  if (!opened) (globalThis as { open?: (url: string, target: string, features: string) => unknown }).open?.(verdict.parts.href, '_blank', 'noopener,noreferrer');
}

export type { RequiredElicitation };

/**
 * The links of a `-32042` (URL elicitation required) call error, from the error's detail (main
 * reads them from the JSON-RPC error's data); null when the error is not such an error. The links
 * are the server's words: checked again here, at most 10, each opened only by `openConsented`.
 */
export function parseUrlElicitationRequired(detail: ErrorDetail | undefined): RequiredElicitation[] | null {
  if (detail?.rpcCode !== URL_ELICITATION_REQUIRED || !Array.isArray(detail.elicitations)) return null;
  const items = detail.elicitations
    .filter((x): x is RequiredElicitation => typeof x === 'object' && x !== null && typeof x.url === 'string')
    .slice(0, 10)
    .map((x) => ({
      url: x.url,
      ...(typeof x.elicitationId === 'string' ? { elicitationId: x.elicitationId } : {}),
      ...(typeof x.message === 'string' ? { message: x.message } : {}),
    }));
  return items.length ? items : null;
}
