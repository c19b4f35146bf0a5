/**
 * What the MCP App host tells an app and decides for it, as pure functions (no React, no DOM),
 * unit-tested from Node: the host context (theme, our Mantine theme as the spec's CSS
 * variables, display mode, container size, locale), the host capabilities, the frame's height
 * bounds and size presets, which links an app may ask to open, the model panel's bounded list,
 * the partial-input throttle, and the shapes the bridge hands back to an app.
 */
import type { McpUiDisplayMode, McpUiHostCapabilities, McpUiHostContext, McpUiResourceCsp, McpUiResourcePermissions, McpUiStyles, McpUiTheme } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { AppInstance, AppLogEntry, AppPermission, Result } from '../../../../../contract';

export const DISPLAY_MODES: McpUiDisplayMode[] = ['inline', 'fullscreen', 'pip'];

export function isDisplayMode(value: unknown): value is McpUiDisplayMode {
  return typeof value === 'string' && (DISPLAY_MODES as string[]).includes(value);
}

/** The frame's height as the app asks for it (size-changed), kept within bounds. */
export const FRAME_HEIGHT = { min: 40, max: 4000, initial: 360 };

export function clampFrameHeight(height: unknown): number | null {
  if (typeof height !== 'number' || !Number.isFinite(height)) return null;
  return Math.round(Math.min(FRAME_HEIGHT.max, Math.max(FRAME_HEIGHT.min, height)));
}

/** The Devtools strip's container sizes: a phone, a tablet, or as wide as there is room. */
export const SIZE_PRESETS = [
  { value: 'full', label: 'Full width', width: undefined, height: undefined },
  { value: '320x480', label: '320 × 480', width: 320, height: 480 },
  { value: '768x600', label: '768 × 600', width: 768, height: 600 },
  { value: '1024x768', label: '1024 × 768', width: 1024, height: 768 },
] as const;
export type SizePreset = (typeof SIZE_PRESETS)[number]['value'];

export function sizePreset(value: string | null | undefined): (typeof SIZE_PRESETS)[number] {
  return SIZE_PRESETS.find((p) => p.value === value) ?? SIZE_PRESETS[0];
}

/**
 * The spec's style variables from our Mantine theme: each color names the Mantine palette
 * variable it is read from in each scheme (palette variables exist in both, so an app can be
 * told the other theme than ours — the Devtools strip's theme button), others a scheme-free
 * variable or a literal. Read with getComputedStyle, so the app (on another origin, where our
 * variables do not exist) gets plain values. The pairs follow Mantine's own scheme variables
 * (body, text, dimmed, default border, the light variants).
 */
type Source = string | { light: string; dark: string } | { literal: string };
const pair = (light: string, dark: string) => ({ light: `--mantine-color-${light}`, dark: `--mantine-color-${dark}` });
const STYLE_SOURCES: Partial<Record<keyof McpUiStyles, Source>> = {
  '--color-background-primary': pair('white', 'dark-7'),
  '--color-background-secondary': pair('gray-0', 'dark-6'),
  '--color-background-tertiary': pair('gray-1', 'dark-5'),
  '--color-background-inverse': pair('dark-7', 'white'),
  '--color-background-ghost': pair('gray-0', 'dark-6'),
  '--color-background-info': pair('blue-0', 'blue-9'),
  '--color-background-danger': pair('red-0', 'red-9'),
  '--color-background-success': pair('green-0', 'green-9'),
  '--color-background-warning': pair('yellow-0', 'yellow-9'),
  '--color-background-disabled': pair('gray-2', 'dark-6'),
  '--color-text-primary': pair('black', 'dark-0'),
  '--color-text-secondary': pair('gray-6', 'dark-2'),
  '--color-text-tertiary': pair('gray-5', 'dark-3'),
  '--color-text-inverse': pair('white', 'dark-7'),
  '--color-text-info': pair('blue-7', 'blue-4'),
  '--color-text-danger': pair('red-7', 'red-4'),
  '--color-text-success': pair('green-7', 'green-4'),
  '--color-text-warning': pair('yellow-8', 'yellow-4'),
  '--color-text-disabled': pair('gray-5', 'dark-3'),
  '--color-border-primary': pair('gray-4', 'dark-4'),
  '--color-border-secondary': pair('gray-2', 'dark-5'),
  '--color-border-info': pair('blue-4', 'blue-8'),
  '--color-border-danger': pair('red-4', 'red-8'),
  '--color-ring-primary': pair('indigo-6', 'indigo-8'),
  '--font-sans': '--mantine-font-family',
  '--font-mono': '--mantine-font-family-monospace',
  '--font-weight-normal': { literal: '400' },
  '--font-weight-medium': { literal: '500' },
  '--font-weight-semibold': { literal: '600' },
  '--font-weight-bold': { literal: '700' },
  '--font-text-xs-size': '--mantine-font-size-xs',
  '--font-text-sm-size': '--mantine-font-size-sm',
  '--font-text-md-size': '--mantine-font-size-md',
  '--font-text-lg-size': '--mantine-font-size-lg',
  '--font-text-xs-line-height': '--mantine-line-height-xs',
  '--font-text-sm-line-height': '--mantine-line-height-sm',
  '--font-text-md-line-height': '--mantine-line-height-md',
  '--font-text-lg-line-height': '--mantine-line-height-lg',
  '--border-radius-xs': '--mantine-radius-xs',
  '--border-radius-sm': '--mantine-radius-sm',
  '--border-radius-md': '--mantine-radius-md',
  '--border-radius-lg': '--mantine-radius-lg',
  '--border-radius-xl': '--mantine-radius-xl',
  '--border-radius-full': { literal: '9999px' },
  '--border-width-regular': { literal: '1px' },
  '--shadow-sm': '--mantine-shadow-sm',
  '--shadow-md': '--mantine-shadow-md',
  '--shadow-lg': '--mantine-shadow-lg',
};

/** A value we pass on: short, and nothing that could end a declaration or open a block. */
function plainCssValue(value: string): string | undefined {
  const v = value.trim();
  if (!v || v.length > 300 || /[;{}<>]/.test(v)) return undefined;
  return v;
}

/** `read(name)` returns a CSS custom property's computed value on our root ('' when unset). */
export function styleVariables(theme: McpUiTheme, read: (name: string) => string): Partial<McpUiStyles> {
  const out: Partial<McpUiStyles> = {};
  for (const [key, source] of Object.entries(STYLE_SOURCES) as [keyof McpUiStyles, Source][]) {
    const raw = typeof source === 'string' ? read(source) : 'literal' in source ? source.literal : read(theme === 'dark' ? source.dark : source.light);
    const value = plainCssValue(raw);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export interface HostContextInput {
  theme: McpUiTheme;
  variables: Partial<McpUiStyles>;
  displayMode: McpUiDisplayMode;
  /** The frame's container, in CSS pixels. */
  container: { width: number; height?: number; maxHeight?: number };
  locale: string;
  timeZone: string;
  platform: 'desktop' | 'web';
  tool?: { name: string; description?: string; inputSchema: unknown };
}

export function buildHostContext(input: HostContextInput): McpUiHostContext {
  const { width, height, maxHeight } = input.container;
  return {
    theme: input.theme,
    styles: { variables: input.variables as McpUiStyles },
    displayMode: input.displayMode,
    availableDisplayModes: [...DISPLAY_MODES],
    containerDimensions: height !== undefined ? { width: Math.round(width), height: Math.round(height) } : { width: Math.round(width), maxHeight: Math.round(maxHeight ?? FRAME_HEIGHT.max) },
    locale: input.locale,
    timeZone: input.timeZone,
    platform: input.platform,
    userAgent: 'Switchboard',
    deviceCapabilities: { hover: true },
    ...(input.tool ? { toolInfo: { tool: { name: input.tool.name, ...(input.tool.description ? { description: input.tool.description.slice(0, 2000) } : {}), inputSchema: input.tool.inputSchema as { type: 'object' } } } } : {}),
  };
}

/** Permissions granted to an instance, as the spec's object. */
export function permissionsObject(granted: readonly AppPermission[]): McpUiResourcePermissions {
  const out: McpUiResourcePermissions = {};
  for (const p of granted) out[p] = {};
  return out;
}

/** The declared CSP domains the policy builder kept (what we approved), per field. */
export function approvedCsp(instance: Pick<AppInstance, 'declared' | 'refused'>): McpUiResourceCsp {
  const out: McpUiResourceCsp = {};
  for (const key of ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const) {
    const values = instance.declared[key];
    if (!values) continue;
    const refused = new Set(instance.refused.map((r) => r.value));
    out[key] = values.filter((v) => !refused.has(v));
  }
  return out;
}

/**
 * What Switchboard does for an app, and no more: it proxies tool calls and resource reads to the
 * app's own server, takes log messages, opens http(s) links after consent, and shows
 * ui/message and ui/update-model-context to the person — it has no model, so nothing the app
 * sends there goes further (said in `experimental`, since the spec has no field for it).
 */
export function hostCapabilities(instance: Pick<AppInstance, 'declared' | 'refused' | 'granted'>): McpUiHostCapabilities {
  return {
    openLinks: {},
    serverTools: {},
    serverResources: {},
    logging: {},
    message: { text: {}, image: {}, resource: {}, resourceLink: {}, structuredContent: {} },
    updateModelContext: { text: {}, image: {}, resource: {}, resourceLink: {}, structuredContent: {} },
    sandbox: { permissions: permissionsObject(instance.granted), csp: approvedCsp(instance) },
    experimental: { 'switchboard/inspector': { model: 'none', note: 'ui/message and ui/update-model-context are shown to the person and go nowhere else' } },
  };
}

export type LinkVerdict = { ok: true; href: string; scheme: string; host: string; rest: string } | { ok: false; reason: string };

/** An app's ui/open-link: http and https only, no embedded credentials; the host shown apart. */
export function checkAppLink(raw: unknown): LinkVerdict {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'Refused: the app asked to open a link without a URL.' };
  if (raw.length > 8192) return { ok: false, reason: 'Refused: the link is longer than 8,192 characters.' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'Refused: the app asked to open something that is not a URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `Refused without asking: the link uses ${url.protocol.slice(0, 40)} — an app may ask to open only http: and https: links.` };
  if (url.username || url.password) return { ok: false, reason: 'Refused without asking: the link carries a user name or password, a common way to disguise where it goes.' };
  if (!url.hostname) return { ok: false, reason: 'Refused: the link has no host.' };
  return { ok: true, href: url.href, scheme: `${url.protocol}//`, host: `${url.hostname}${url.port ? `:${url.port}` : ''}`, rest: `${url.pathname}${url.search}${url.hash}` };
}

/** What an app asked to send to a model (ui/message, ui/update-model-context): shown, newest first. */
export interface ModelEntry {
  id: number;
  at: number;
  kind: 'message' | 'context';
  params: unknown;
}
export const MODEL_PANEL_MAX = 50;

export function pushNewest<T>(list: readonly T[], item: T, max: number): T[] {
  return [item, ...list.slice(0, Math.max(0, max - 1))];
}

/**
 * Calls `send` at most once per `gapMs`: the first call at once, the latest of those within the
 * gap when it has passed (the app sees the newest partial input, never a burst of stale ones).
 */
export function throttleLatest<T>(gapMs: number, send: (value: T) => void, clock: { now(): number; set(fn: () => void, ms: number): unknown; clear(handle: unknown): void }) {
  let last = -Infinity;
  let pending: { value: T } | null = null;
  let timer: unknown = undefined;
  const fire = () => {
    timer = undefined;
    if (!pending) return;
    const { value } = pending;
    pending = null;
    last = clock.now();
    send(value);
  };
  return {
    push(value: T) {
      pending = { value };
      if (timer !== undefined) return;
      const wait = last + gapMs - clock.now();
      if (wait <= 0) fire();
      else timer = clock.set(fire, wait);
    },
    /** Drops what waits (a full input superseded it). */
    cancel() {
      pending = null;
      if (timer !== undefined) clock.clear(timer);
      timer = undefined;
    },
  };
}

const LOG_LEVELS = new Set<AppLogEntry['level']>(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** An app's notifications/message as a log entry: its level if it is one, its data as text, bounded. */
export function logEntryFromApp(params: unknown, ts: number, maxChars = 4000): AppLogEntry {
  const p = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  const level = LOG_LEVELS.has(p.level as AppLogEntry['level']) ? (p.level as AppLogEntry['level']) : 'info';
  let data: string;
  try {
    data = typeof p.data === 'string' ? p.data : (JSON.stringify(p.data) ?? String(p.data));
  } catch {
    data = '(data that cannot be written as JSON)';
  }
  const logger = typeof p.logger === 'string' && p.logger ? `[${p.logger.slice(0, 100)}] ` : '';
  const text = `${logger}${data}`;
  return { ts, level, kind: 'log', text: text.length > maxChars ? `${text.slice(0, maxChars)}…` : text };
}

type ResourceLists = Result<'listResources'>;

/** Our resource list, as the MCP shapes an app expects (one server's, named as that server names them). */
export function mcpResources(list: ResourceLists, serverId: string) {
  const keep = <T extends { serverId: string }>(items: T[]) => items.filter((r) => r.serverId === serverId);
  return {
    resources: keep(list.resources).map(({ uri, name, title, description, mimeType }) => ({ uri, name, ...(title ? { title } : {}), ...(description ? { description } : {}), ...(mimeType ? { mimeType } : {}) })),
    resourceTemplates: keep(list.templates).map(({ uriTemplate, name, title, description, mimeType }) => ({ uriTemplate, name, ...(title ? { title } : {}), ...(description ? { description } : {}), ...(mimeType ? { mimeType } : {}) })),
  };
}

/** The effective policy, one directive a line (for the Devtools strip). */
export function cspLines(csp: string): string[] {
  return csp
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean);
}
