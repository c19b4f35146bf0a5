/**
 * The one application window, locked down: isolated and sandboxed renderer, a CJS preload
 * that exposes only the contract, no navigation away from our origin, no popups (http(s)
 * links go to the system browser), no permissions, no <webview>.
 */
import { BrowserWindow, shell, type WebContents } from 'electron';
import { originOf } from './ipc';
import { APP_ENTRY_URL } from './protocol';

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
 * What every Switchboard window's contents get: no permission is ever granted (camera,
 * notifications, clipboard-read, geolocation, …), navigation and redirects only where
 * `mayNavigate` allows, no <webview>, and new windows denied — http(s) ones go to the system
 * browser instead.
 */
export function lockDown(contents: WebContents, mayNavigate: (url: string) => boolean): void {
  contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  contents.session.setPermissionCheckHandler(() => false);
  contents.on('will-navigate', (event) => {
    if (!mayNavigate(event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!mayNavigate(event.url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalHttpUrl(url);
    if (external) void shell.openExternal(external).catch(() => undefined);
    return { action: 'deny' };
  });
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
