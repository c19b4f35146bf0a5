/**
 * The server info panel's pure parts (no React, unit-tested): which icons may be shown, the
 * words for each "declared vs did" finding, the capability list, and which panel is open.
 */
import type { CapabilityMismatch, ServerIcon } from '../../../../contract';
import { Store } from '../../state/store';

type Icon = { src: string; mimeType?: string; sizes?: string[]; theme?: string };
export type { ServerIcon };

const IMAGE_DATA = /^data:image\/(png|jpeg|gif|webp|svg\+xml|x-icon|vnd\.microsoft\.icon)(;[a-z0-9=.+-]+)*(;base64)?,/i;

/**
 * How an icon may be shown: `image` for a data: image (drawn as an <img>, where an SVG cannot run
 * script), `link` for an https URL (this page loads no remote images: its CSP allows only its own
 * and data: sources, so the address is listed instead), `refused` for anything else.
 */
export function iconVerdict(icon: Pick<Icon, 'src'>): { kind: 'image' | 'link' | 'refused'; reason?: string } {
  const src = icon.src.trim();
  if (IMAGE_DATA.test(src)) return { kind: 'image' };
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return { kind: 'refused', reason: 'not a URL' };
  }
  if (url.protocol === 'https:' && !url.username && !url.password) return { kind: 'link', reason: 'remote images are not loaded (only data: icons are drawn)' };
  return { kind: 'refused', reason: `${url.protocol} icons are never used (only data: images and https: addresses)` };
}

/** The sentence for one finding. */
export function describeMismatch(m: CapabilityMismatch): string {
  const times = m.count === 1 ? 'once' : `${m.count.toLocaleString('en-US')} times`;
  switch (m.kind) {
    case 'undeclared':
      return `Sent ${m.method} ${times} without declaring ${m.capability}.`;
    case 'unasked':
      return `Asked for ${m.method} ${times}, but Switchboard did not declare the ${m.capability} capability.`;
    case 'refused':
      return `Declared ${m.capability}, but answered ${m.method} with "Method not found" (${times}).`;
  }
}

/** A capability object as rows: `tools` → `listChanged`, for the two capability tables. */
export function capabilityRows(caps: Record<string, unknown> | undefined): { name: string; detail: string }[] {
  if (!caps) return [];
  return Object.entries(caps)
    .slice(0, 100)
    .map(([name, value]) => ({ name: name.slice(0, 100), detail: detailOf(value) }));
}

function detailOf(value: unknown): string {
  if (value === true) return 'yes';
  if (!value || typeof value !== 'object' || Array.isArray(value)) return JSON.stringify(value)?.slice(0, 200) ?? '';
  const parts = Object.entries(value as Record<string, unknown>).map(([k, v]) => (v === true ? k : v && typeof v === 'object' ? `${k} {${Object.keys(v as object).slice(0, 8).join(', ')}}` : `${k}: ${JSON.stringify(v)?.slice(0, 60)}`));
  return parts.join(', ').slice(0, 300);
}

// --- MCP Apps ---------------------------------------------------------------------------------

/** The MCP Apps extension's name in `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/**
 * Whether a capabilities object declares the MCP Apps extension (`extensions["io.modelcontextprotocol/ui"]`),
 * and the mime types it names (hostile input: only strings, clipped, at most 8).
 */
export function appsExtension(caps: Record<string, unknown> | undefined): { declared: boolean; mimeTypes: string[] } {
  const extensions = caps?.extensions;
  if (!extensions || typeof extensions !== 'object' || Array.isArray(extensions) || !Object.prototype.hasOwnProperty.call(extensions, APPS_EXTENSION)) return { declared: false, mimeTypes: [] };
  const value = (extensions as Record<string, unknown>)[APPS_EXTENSION];
  if (value === undefined || value === null || value === false) return { declared: false, mimeTypes: [] };
  const list = value && typeof value === 'object' && !Array.isArray(value) ? (value as { mimeTypes?: unknown }).mimeTypes : undefined;
  const mimeTypes = Array.isArray(list) ? list.filter((m): m is string => typeof m === 'string').slice(0, 8).map((m) => m.slice(0, 100)) : [];
  return { declared: true, mimeTypes };
}

/** The sentence under "MCP Apps" in the panel: what Switchboard declared to this server, and why. */
export function appsDeclaredLine(clientCaps: Record<string, unknown> | undefined, setting: boolean): string {
  const ours = appsExtension(clientCaps);
  if (ours.declared) return `Switchboard declared the MCP Apps extension (${APPS_EXTENSION}${ours.mimeTypes.length ? `, ${ours.mimeTypes.join(', ')}` : ''}).`;
  return setting
    ? `Switchboard did not declare the MCP Apps extension (${APPS_EXTENSION}) in this connection; reconnect to declare it.`
    : `Switchboard did not declare the MCP Apps extension (${APPS_EXTENSION}): it is turned off in this server's settings.`;
}

// --- which server's panel is open (one at a time, opened from anywhere) ----------------------

/** The open panel's server id; one per window (module level), since one panel shows at a time. */
class PanelState extends Store<string | undefined> {
  open(serverId: string): void {
    this.set(serverId);
  }

  close(): void {
    this.set(undefined);
  }
}

export const serverInfoPanel = new PanelState(undefined);
