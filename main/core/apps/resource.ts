/**
 * MCP Apps: a UI resource as `resources/read` returned it, checked before anything renders it:
 * the content item (the one with the URI asked for, or the only one), its MIME type
 * (`text/html;profile=mcp-app`), its HTML (text, or base64 `blob` that must be UTF-8) within
 * MAX_HTML_BYTES, and its `_meta.ui` (csp, permissions, domain, prefersBorder) read defensively.
 */
import { APP_PERMISSIONS, type AppCspDeclared, type AppPermission } from '../../../contract';
import { CoreError } from '../errors';
import { MAX_VALUE_CHARS } from './csp';
import { kindOf, record } from './shape';

/** The largest app HTML Switchboard runs. */
export const MAX_HTML_BYTES = 5 * 1024 * 1024;
/** Declared CSP values kept to show (the policy builder keeps at most 64 of them per list). */
const DECLARED_SHOWN = 256;

export interface AppResource {
  mimeType: string;
  html: string;
  /** `_meta.ui` of the content item, else of the resources/list entry, else nothing. */
  ui: Record<string, unknown> | undefined;
  /** Where `ui` came from. */
  uiFrom: 'content' | 'list' | undefined;
}

/** The app's content from a resources/read result; a CoreError in words for anything that is not an MCP App. */
export function appResourceOf(result: unknown, uri: string, listed: unknown): AppResource {
  const shown = JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}…` : uri);
  const contents = record(result)?.contents;
  if (!Array.isArray(contents) || contents.length === 0) throw new CoreError('failed', `${shown} cannot open as an app: the resources/read answer has no contents.`);
  const item = record(contents.find((c) => record(c)?.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined));
  if (!item) throw new CoreError('failed', `${shown} cannot open as an app: the answer has ${contents.length} content items and none of them has that URI.`);
  const mimeType = item.mimeType;
  if (typeof mimeType !== 'string' || !isAppMimeType(mimeType)) {
    const came = typeof mimeType === 'string' ? `"${mimeType.slice(0, 100)}"` : `no MIME type (${kindOf(mimeType)})`;
    throw new CoreError('failed', `${shown} is not an MCP App: it came as ${came}, and Switchboard runs only text/html;profile=mcp-app.`);
  }
  const html = htmlOf(item, shown);
  const own = record(record(item._meta)?.ui);
  const fromList = own ? undefined : record(record(record(listed)?._meta)?.ui);
  return { mimeType, html, ui: own ?? fromList, uiFrom: own ? 'content' : fromList ? 'list' : undefined };
}

/** `text/html;profile=mcp-app`, whatever the case, spaces, quotes or other parameters. */
export function isAppMimeType(value: string): boolean {
  const [type, ...params] = value.toLowerCase().split(';').map((part) => part.trim());
  if (type !== 'text/html') return false;
  return params.some((param) => {
    const [key, raw] = param.split('=').map((part) => part.trim());
    return key === 'profile' && raw?.replace(/^"(.*)"$/, '$1') === 'mcp-app';
  });
}

function htmlOf(item: Record<string, unknown>, shown: string): string {
  const tooLarge = (bytes: number) => new CoreError('failed', `${shown} is too large to run: ${(bytes / 1024 ** 2).toFixed(1)} MiB of HTML, and Switchboard runs at most ${MAX_HTML_BYTES / 1024 ** 2} MiB.`);
  if (typeof item.text === 'string') {
    // A UTF-8 byte is at most one UTF-16 unit, so a text this short is within the limit without counting.
    const bytes = item.text.length * 3 <= MAX_HTML_BYTES ? item.text.length : Buffer.byteLength(item.text, 'utf8');
    if (bytes > MAX_HTML_BYTES) throw tooLarge(bytes);
    return item.text;
  }
  if (typeof item.blob === 'string') {
    const blob = item.blob.replace(/\s+/g, '');
    if (Math.floor((blob.length * 3) / 4) > MAX_HTML_BYTES + 2) throw tooLarge(Math.floor((blob.length * 3) / 4));
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(blob) || blob.length % 4 === 1) throw new CoreError('failed', `${shown} cannot open as an app: its blob is not base64.`);
    const bytes = Buffer.from(blob, 'base64');
    if (bytes.length > MAX_HTML_BYTES) throw tooLarge(bytes.length);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new CoreError('failed', `${shown} cannot open as an app: its blob is not UTF-8 text.`);
    }
  }
  throw new CoreError('failed', `${shown} cannot open as an app: its content item has neither text nor blob.`);
}

/** The declared CSP lists as the server sent them (strings only, bounded), for the Devtools strip. */
export function declaredCspOf(csp: unknown): AppCspDeclared {
  const source = record(csp);
  const out: AppCspDeclared = {};
  if (!source) return out;
  for (const key of ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const) {
    const list = source[key];
    if (!Array.isArray(list)) continue;
    out[key] = list
      .filter((v): v is string => typeof v === 'string')
      .slice(0, DECLARED_SHOWN)
      .map((v) => (v.length > MAX_VALUE_CHARS * 2 ? `${v.slice(0, MAX_VALUE_CHARS * 2)}…` : v));
  }
  return out;
}

/** The permissions the resource asks for: the known ones present as an object (or `true`). */
export function permissionsOf(value: unknown): AppPermission[] {
  const asked = record(value);
  if (!asked) return [];
  return APP_PERMISSIONS.filter((name) => asked[name] === true || record(asked[name]) !== undefined);
}

/** The Permission Policy features a frame's `allow` gets for granted permissions. */
export function allowFeatures(granted: readonly AppPermission[]): string[] {
  return granted.map((name) => (name === 'clipboardWrite' ? 'clipboard-write' : name));
}
