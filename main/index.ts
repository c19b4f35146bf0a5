/**
 * Entry point of the Electron app (built to out/main/index.js): one instance, one window, the
 * core behind the IPC carrier, the renderer served from app://switchboard/.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserWindow, app, dialog, ipcMain, protocol, shell } from 'electron';
import { createCore, type Core } from './core/app';
import { installProcessGuards } from './core/logs/process-guards';
import { forwardEvents, originOf, registerIpc, trustedSenderCheck } from './adapters/electron/ipc';
import { installAppProtocol, registerScheme } from './adapters/electron/protocol';
import { SANDBOX_SCHEME_PRIVILEGE, createElectronSandbox, installSandboxProtocol } from './adapters/electron/app-sandbox';
import { electronFileDialogs } from './adapters/electron/file-dialogs';
import { ElectronLoginWindow } from './adapters/electron/login-window';
import { createElectronSecretStore } from './adapters/electron/secret-store';
import { ElectronSettingsStore } from './adapters/electron/settings-store';
import { createMainWindow, rendererEntry } from './adapters/electron/window';

const here = dirname(fileURLToPath(import.meta.url));
const RENDERER_DIR = join(here, '../renderer');
const PRELOAD_PATH = join(here, '../preload/index.cjs');
const SHUTDOWN_GRACE_MS = 5_000;

// `--user-data-dir=<dir>` (tests, portable runs): settings and the instance lock live there.
const userDataArg = process.argv.find((arg) => arg.startsWith('--user-data-dir='));
if (userDataArg) app.setPath('userData', userDataArg.slice('--user-data-dir='.length));

// Before ready: privileged scheme, sandbox for every renderer.
registerScheme(protocol, [SANDBOX_SCHEME_PRIVILEGE]);
app.enableSandbox();

let core: Core | undefined;
let mainWindow: BrowserWindow | null = null;

// Whatever escapes is reported (stderr and the Logs view) instead of Electron's crash dialog; the app keeps running.
installProcessGuards({ logs: () => core?.logs });

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow || mainWindow.isDestroyed()) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  // Any web contents, not only ours: no <webview>, no popups.
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });

  app.on('window-all-closed', () => app.quit());

  let shutdown: 'idle' | 'running' | 'done' = 'idle';
  app.on('before-quit', (event) => {
    if (!core || shutdown === 'done') return;
    event.preventDefault();
    if (shutdown === 'running') return;
    shutdown = 'running';
    const grace = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    void Promise.race([core.shutdown().catch(() => undefined), grace]).finally(() => {
      shutdown = 'done';
      app.quit();
    });
  });

  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      dialog.showErrorBox('Switchboard could not start', error instanceof Error ? error.message : String(error));
      app.exit(1);
    });
}

async function start(): Promise<void> {
  const settings = new ElectronSettingsStore(app.getPath('userData'));
  // OAuth tokens: encrypted by the OS keychain where there is one (safeStorage needs a ready app).
  const secrets = await createElectronSecretStore(join(app.getPath('userData'), 'secrets.json'));
  const login = new ElectronLoginWindow({ useSystemBrowser: () => settings.read().oauthSystemBrowser, parent: () => BrowserWindow.getAllWindows()[0] });
  const entry = rendererEntry(process.env, app.isPackaged);
  // MCP Apps: sandbox pages on switchboard-app://sandbox, talking only to our renderer's origin.
  const appSandbox = createElectronSandbox(entry.origin);
  // URLs reach here only after core's scheme check (https, or http on loopback).
  // Exports and imports: native dialogs in main, the file streamed to or from disk by the core.
  const fileDialogs = electronFileDialogs({ dialog, parent: () => liveWindow(), saveFolder: () => app.getPath('downloads') });
  core = createCore({ settings, carrier: 'electron', version: app.getVersion(), openExternal: (url) => shell.openExternal(url).then(() => true), secrets, login, appSandbox, fileDialogs });
  const running = core;

  installAppProtocol(protocol, RENDERER_DIR);
  installSandboxProtocol(protocol, appSandbox);

  const window = createMainWindow({ entry, preloadPath: PRELOAD_PATH });
  mainWindow = window;

  const disposeIpc = registerIpc(ipcMain, running.dispatch, trustedSenderCheck(() => liveWindow(), entry.origin));
  const stopForwarding = forwardEvents(running.events, (channel, payload) => {
    const target = liveWindow();
    if (!target) return;
    const contents = target.webContents;
    if (contents.isDestroyed() || contents.isCrashed()) return;
    // Only to our own page: never to something the window was somehow navigated to.
    if (originOf(contents.getURL()) !== originOf(entry.origin)) return;
    contents.send(channel, payload);
  });

  window.on('closed', () => {
    stopForwarding();
    disposeIpc();
    mainWindow = null;
  });
}

function liveWindow(): BrowserWindow | null {
  return mainWindow && !mainWindow.isDestroyed() ? mainWindow : null;
}
