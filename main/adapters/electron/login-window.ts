/**
 * The `LoginWindow` port in Electron: a dedicated window for the authorization server's pages,
 * with a session partition of its own (no cookies shared with the app), sandboxed, no preload,
 * no Node. The redirect back lands on the core's loopback listener; the window closes when the
 * flow ends either way. Optionally the system browser instead (setting).
 */
import { BrowserWindow, shell } from 'electron';
import { randomUUID } from 'node:crypto';
import { externalHttpUrl, lockDown } from './window';
import { LoopbackCallback, checkAuthorizationUrl, type AuthorizationRequest, type CallbackParams, type LoginWindow } from '../../core/auth/login';

export interface ElectronLoginOptions {
  /** Use the system browser instead of a Switchboard window (read at each sign-in). */
  useSystemBrowser: () => boolean;
  parent?: () => BrowserWindow | undefined;
}

export class ElectronLoginWindow implements LoginWindow {
  constructor(private readonly options: ElectronLoginOptions) {}

  get kind(): string {
    return this.options.useSystemBrowser() ? 'system browser' : 'login window';
  }

  redirectUrl(): string {
    return new LoopbackCallback().url;
  }

  async authorize(request: AuthorizationRequest): Promise<CallbackParams> {
    const url = checkAuthorizationUrl(request.url);
    const callback = new LoopbackCallback(Number(new URL(request.redirectUrl).port));
    if (this.options.useSystemBrowser()) {
      return callback.wait(request.state, request.signal, () => shell.openExternal(url.href));
    }
    let window: BrowserWindow | undefined;
    const closed = new AbortController();
    const signal = AbortSignal.any([request.signal, closed.signal]);
    try {
      return await callback.wait(request.state, signal, () => {
        window = openLoginWindow(url, request, this.options.parent?.());
        window.on('closed', () => closed.abort(new Error('The sign-in window was closed before signing in finished.')));
      });
    } finally {
      if (window && !window.isDestroyed()) window.destroy();
    }
  }
}

function openLoginWindow(url: URL, request: AuthorizationRequest, parent: BrowserWindow | undefined): BrowserWindow {
  const window = new BrowserWindow({
    width: 520,
    height: 720,
    parent,
    title: `Sign in to ${request.serverName} — ${url.host}`,
    autoHideMenuBar: true,
    webPreferences: {
      // Its own in-memory partition: each sign-in starts without the app's or a previous one's cookies.
      partition: `oauth-${randomUUID()}`,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      javascript: true,
    },
  });
  // Navigation stays on http(s): the authorization server's pages and the loopback redirect.
  // Pop-ups from the login page ("forgot password") open in the system browser.
  lockDown(window.webContents, (target) => externalHttpUrl(target) !== undefined);
  void window.loadURL(url.href);
  return window;
}
