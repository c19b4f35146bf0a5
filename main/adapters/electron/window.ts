/**
 * The one application window, locked down: isolated and sandboxed renderer, a CJS preload
 * that exposes only the contract, no navigation away from our origin, no popups (http(s)
 * links go to the system browser, after a user gesture or a question), no permissions, no
 * <webview>.
 */
import { BrowserWindow, dialog, shell, type WebContents } from 'electron';
import { originOf } from './ipc';
import { APP_ENTRY_URL } from './protocol';
import { frameDepth, frameNavigationAllowed } from './app-sandbox';

export interface RendererEntry {
  /** What the window loads. */
  url: string;
  /** The only origin the window may show and the only one the IPC sender check accepts. */
  origin: string;
}

/**
 * Production: `app://switchboard/index.html`. Development (`electron-vite dev` sets
 * ELECTRON_RENDERER_URL): the Vite dev server. The variable is ignored in a packaged app.
 */
export function rendererEntry(env: NodeJS.ProcessEnv = process.env, isPackaged = false): RendererEntry {
  const devUrl = isPackaged ? undefined : env['ELECTRON_RENDERER_URL'];
  const devOrigin = devUrl ? originOf(devUrl) : undefined;
  if (devUrl && devOrigin && /^https?:/.test(devOrigin)) return { url: devUrl, origin: devOrigin };
  return { url: APP_ENTRY_URL, origin: originOf(APP_ENTRY_URL)! };
}

export function isSameOrigin(url: string, origin: string): boolean {
  const actual = originOf(url);
  return actual !== undefined && actual === originOf(origin);
}

/** An http(s) URL fit for the system browser (no credentials in it), or undefined. */
export function externalHttpUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (!parsed.hostname || parsed.username || parsed.password) return undefined;
  return parsed.href;
}

/**
 * How long a click or key press lets a page open one link in the system browser: Chromium's
 * own transient user activation lasts 5 s.
 */
export const GESTURE_GRACE_MS = 5_000;

/** Input that counts as the user's gesture (what grants transient activation in Chromium). */
const GESTURE_INPUTS = new Set(['mouseDown', 'mouseUp', 'rawKeyDown', 'keyDown', 'gestureTap', 'touchEnd', 'pointerDown', 'pointerUp']);

export function isGestureInput(type: string): boolean {
  return GESTURE_INPUTS.has(type);
}

export type WindowOpenDecision = { action: 'open'; url: string } | { action: 'ask'; url: string } | { action: 'deny' };

/**
 * What a `window.open` (or a target=_blank link) gets: never a Switchboard window; an http(s)
 * URL without credentials goes to the system browser straight away only right after a user
 * gesture in that page, otherwise only if the user says yes; anything else is denied. Pure, so
 * it is tested without Electron.
 */
export function windowOpenDecision(url: string, lastGestureAt: number | undefined, now: number): WindowOpenDecision {
  const external = externalHttpUrl(url);
  if (!external) return { action: 'deny' };
  if (lastGestureAt !== undefined && now - lastGestureAt >= 0 && now - lastGestureAt <= GESTURE_GRACE_MS) return { action: 'open', url: external };
  return { action: 'ask', url: external };
}

/**
 * What every Switchboard window's contents get: no permission is ever granted (camera,
 * notifications, clipboard-read, geolocation, …), navigation and redirects only where
 * `mayNavigate` allows, no <webview>, and new windows denied — http(s) ones go to the system
 * browser instead, one per user gesture, or after asking.
 */
export function lockDown(contents: WebContents, mayNavigate: (url: string) => boolean, now: () => number = Date.now): void {
  contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  contents.session.setPermissionCheckHandler(() => false);
  contents.on('will-navigate', (event) => {
    if (!mayNavigate(event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!mayNavigate(event.url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  let lastGestureAt: number | undefined;
  contents.on('input-event', (_event, input) => {
    if (isGestureInput(input.type)) lastGestureAt = now();
  });
  contents.setWindowOpenHandler(({ url }) => {
    const decision = windowOpenDecision(url, lastGestureAt, now());
    if (decision.action === 'open') {
      lastGestureAt = undefined; // one gesture, one link
      void shell.openExternal(decision.url).catch(() => undefined);
    } else if (decision.action === 'ask') {
      void askToOpen(contents, decision.url);
    }
    return { action: 'deny' };
  });
}

/** A page tried to open a link on its own: the user decides, seeing the whole URL. */
async function askToOpen(contents: WebContents, url: string): Promise<void> {
  const options = {
    type: 'question' as const,
    buttons: ['Open in browser', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    title: 'Open a link?',
    message: 'A page in Switchboard wants to open a link in your web browser.',
    detail: url,
  };
  const parent = BrowserWindow.fromWebContents(contents);
  try {
    const { response } = parent ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
    if (response === 0) await shell.openExternal(url);
  } catch {
    // the window went away: nothing is opened
  }
}

export interface MainWindowOptions {
  entry: RendererEntry;
  /** The built CommonJS preload (out/preload/index.cjs). */
  preloadPath: string;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const { entry } = options;
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 800,
    minHeight: 500,
    title: 'Switchboard',
    show: false,
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  });
  const contents = window.webContents;

  lockDown(contents, (url) => isSameOrigin(url, entry.origin));
  // Sub-frames (MCP Apps): ours show only the sandbox origin, the app's frame only its own document.
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !frameNavigationAllowed({ url: event.url, isMainFrame: false, depth: frameDepth(event.frame) })) event.preventDefault();
  });

  // Shown once painted; shown anyway when loading fails, so the user is not left with nothing.
  const reveal = () => {
    if (!window.isDestroyed() && !window.isVisible()) window.show();
  };
  window.once('ready-to-show', reveal);
  contents.once('did-fail-load', reveal);
  void window.loadURL(entry.url).catch((error: unknown) => {
    console.error(`Switchboard: could not load ${entry.url}: ${error instanceof Error ? error.message : String(error)}`);
  });
  return window;
}
