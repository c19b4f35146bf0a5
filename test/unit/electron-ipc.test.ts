/**
 * The Electron carrier without Electron: a fake ipcMain that records handlers, fake senders,
 * and the app:// protocol's path mapping. Nothing here loads the `electron` package.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENT_NAMES, METHOD_NAMES, ipcChannel, type Envelope } from '../../contract';
import type { Dispatch } from '../../main/core/dispatcher';
import { EventHub } from '../../main/core/events';
import {
  forwardEvents,
  originOf,
  registerIpc,
  trustedSenderCheck,
  type IpcMainLike,
  type SenderEventLike,
  type SenderFrameLike,
} from '../../main/adapters/electron/ipc';
import {
  APP_ENTRY_URL,
  APP_ORIGIN,
  APP_SCHEME_PRIVILEGES,
  createAppProtocolHandler,
  fileForPath,
  fileForRequestUrl,
  registerScheme,
} from '../../main/adapters/electron/protocol';

type Listener = (event: SenderEventLike, ...args: unknown[]) => unknown;

class FakeIpcMain implements IpcMainLike<SenderEventLike> {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** What ipcRenderer.invoke(channel, args) would get back. */
  async invoke(channel: string, event: SenderEventLike, args?: unknown): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(event, args);
  }
}

function frame(url: string, extra: Partial<SenderFrameLike> = {}): SenderFrameLike {
  return { url, detached: false, isDestroyed: () => false, ...extra };
}

function setup() {
  const mainFrame = frame(`${APP_ORIGIN}/index.html`);
  const window = { webContents: { id: 7, mainFrame } };
  let current: typeof window | null = window;
  const ipcMain = new FakeIpcMain();
  const dispatch = vi.fn<Dispatch>(async (method, args) => ({ ok: true, result: { method, args } }));
  const isTrusted = trustedSenderCheck(() => current, APP_ORIGIN);
  const dispose = registerIpc(ipcMain, dispatch, isTrusted);
  const trustedEvent: SenderEventLike = { sender: { id: 7 }, senderFrame: mainFrame };
  return {
    ipcMain,
    dispatch,
    dispose,
    isTrusted,
    mainFrame,
    trustedEvent,
    closeWindow: () => {
      current = null;
    },
  };
}

const UNTRUSTED: Envelope = { ok: false, error: { code: 'failed', message: 'Untrusted sender' } };

describe('registerIpc', () => {
  it('registers exactly one handler per contract method, on its channel', () => {
    const { ipcMain } = setup();
    expect([...ipcMain.handlers.keys()].sort()).toEqual(METHOD_NAMES.map((m) => ipcChannel(m)).sort());
    for (const method of METHOD_NAMES) expect(ipcMain.handlers.has(`switchboard:${method}`)).toBe(true);
  });

  it('hands a trusted call to dispatch with its method and arguments', async () => {
    const { ipcMain, dispatch, trustedEvent } = setup();
    const args = { id: 'abc' };
    const reply = await ipcMain.invoke(ipcChannel('connectServer'), trustedEvent, args);
    expect(dispatch).toHaveBeenCalledTimes(1);
    expect(dispatch).toHaveBeenCalledWith('connectServer', args);
    expect(reply).toEqual({ ok: true, result: { method: 'connectServer', args } });
  });

  it('passes every method through under its own name', async () => {
    const { ipcMain, dispatch, trustedEvent } = setup();
    for (const method of METHOD_NAMES) await ipcMain.invoke(ipcChannel(method), trustedEvent, { n: method });
    expect(dispatch.mock.calls.map(([method]) => method)).toEqual([...METHOD_NAMES]);
  });

  const untrustedCases: [string, (s: ReturnType<typeof setup>) => SenderEventLike][] = [
    ['another webContents', (s) => ({ sender: { id: 8 }, senderFrame: s.mainFrame })],
    ['an iframe of our window (same origin)', () => ({ sender: { id: 7 }, senderFrame: frame(`${APP_ORIGIN}/index.html`) })],
    ['an iframe of our window (foreign origin)', () => ({ sender: { id: 7 }, senderFrame: frame('https://evil.example/') })],
    [
      'our main frame after it navigated to a foreign origin',
      (s) => {
        (s.mainFrame as { url: string }).url = 'https://evil.example/phish';
        return { sender: { id: 7 }, senderFrame: s.mainFrame };
      },
    ],
    [
      'our main frame showing a look-alike app:// host',
      (s) => {
        (s.mainFrame as { url: string }).url = 'app://switchboard.evil/index.html';
        return { sender: { id: 7 }, senderFrame: s.mainFrame };
      },
    ],
    [
      'our main frame on file://',
      (s) => {
        (s.mainFrame as { url: string }).url = 'file:///tmp/index.html';
        return { sender: { id: 7 }, senderFrame: s.mainFrame };
      },
    ],
    ['a null frame', () => ({ sender: { id: 7 }, senderFrame: null })],
    ['an undefined frame', () => ({ sender: { id: 7 }, senderFrame: undefined })],
    [
      'a destroyed frame',
      (s) => {
        (s.mainFrame as { isDestroyed: () => boolean }).isDestroyed = () => true;
        return { sender: { id: 7 }, senderFrame: s.mainFrame };
      },
    ],
    [
      'a detached frame',
      (s) => {
        (s.mainFrame as { detached: boolean }).detached = true;
        return { sender: { id: 7 }, senderFrame: s.mainFrame };
      },
    ],
    [
      'a frame whose properties throw (destroyed in Electron)',
      (s) => {
        Object.defineProperty(s.mainFrame, 'url', {
          get() {
            throw new Error('Render frame was disposed before WebFrameMain could be accessed');
          },
        });
        return { sender: { id: 7 }, senderFrame: s.mainFrame };
      },
    ],
    [
      'any sender once the window is gone',
      (s) => {
        s.closeWindow();
        return s.trustedEvent;
      },
    ],
    ['an event without a sender', () => ({ senderFrame: null }) as unknown as SenderEventLike],
  ];

  it.each(untrustedCases)('refuses %s without calling dispatch', async (_name, makeEvent) => {
    const s = setup();
    const event = makeEvent(s);
    for (const method of METHOD_NAMES) {
      const reply = await s.ipcMain.invoke(ipcChannel(method), event, {});
      expect(reply).toEqual(UNTRUSTED);
    }
    expect(s.dispatch).not.toHaveBeenCalled();
  });

  it('treats a throwing sender check as untrusted', async () => {
    const ipcMain = new FakeIpcMain();
    const dispatch = vi.fn<Dispatch>();
    registerIpc(ipcMain, dispatch, () => {
      throw new Error('boom');
    });
    expect(await ipcMain.invoke(ipcChannel('appInfo'), { sender: { id: 1 }, senderFrame: null })).toEqual(UNTRUSTED);
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('turns a throwing dispatch into a failed envelope', async () => {
    const ipcMain = new FakeIpcMain();
    registerIpc(ipcMain, async () => Promise.reject(new Error('kaput')), () => true);
    expect(await ipcMain.invoke(ipcChannel('appInfo'), { sender: { id: 1 }, senderFrame: null })).toEqual({
      ok: false,
      error: { code: 'failed', message: 'kaput' },
    });
  });

  it('the disposer removes every handler (and is idempotent)', () => {
    const { ipcMain, dispose } = setup();
    const removeHandler = vi.spyOn(ipcMain, 'removeHandler');
    dispose();
    expect(ipcMain.handlers.size).toBe(0);
    expect(removeHandler).toHaveBeenCalledTimes(METHOD_NAMES.length);
    dispose();
    expect(removeHandler).toHaveBeenCalledTimes(METHOD_NAMES.length);
    // The handlers can be registered again afterwards (no "second handler" error).
    expect(() => registerIpc(ipcMain, vi.fn<Dispatch>(), () => true)).not.toThrow();
  });
});

describe('trustedSenderCheck', () => {
  it('accepts our main frame on our origin, any path', () => {
    const { isTrusted, mainFrame } = setup();
    (mainFrame as { url: string }).url = `${APP_ORIGIN}/some/route?x=1#y`;
    expect(isTrusted({ sender: { id: 7 }, senderFrame: mainFrame })).toBe(true);
  });

  it('accepts the dev server origin when that is the app origin', () => {
    const mainFrame = frame('http://localhost:5173/');
    const check = trustedSenderCheck(() => ({ webContents: { id: 1, mainFrame } }), 'http://localhost:5173');
    expect(check({ sender: { id: 1 }, senderFrame: mainFrame })).toBe(true);
    (mainFrame as { url: string }).url = 'http://localhost:5174/';
    expect(check({ sender: { id: 1 }, senderFrame: mainFrame })).toBe(false);
  });

  it('originOf handles app:// (where URL.origin is "null") and rejects junk', () => {
    expect(new URL(APP_ENTRY_URL).origin).toBe('null');
    expect(originOf(APP_ENTRY_URL)).toBe('app://switchboard');
    expect(originOf('https://Example.com:443/a')).toBe('https://example.com');
    expect(originOf('not a url')).toBeUndefined();
    expect(originOf('about:blank')).toBeUndefined();
  });
});

describe('forwardEvents', () => {
  it('forwards every core event on its channel until unsubscribed', () => {
    const hub = new EventHub();
    const send = vi.fn<(channel: string, payload: unknown) => void>();
    const unsubscribe = forwardEvents(hub, send);
    const batch = { lines: [{ ts: 1, source: 'app' as const, level: 'info' as const, text: 'hi' }] };
    hub.emit('logBatch', batch);
    expect(send).toHaveBeenCalledWith('switchboard:logBatch', batch);
    expect(send).toHaveBeenCalledWith(ipcChannel('logBatch'), batch);
    expect(EVENT_NAMES).toContain('logBatch');
    unsubscribe();
    hub.emit('logBatch', batch);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('a throwing send does not break other subscribers', () => {
    const hub = new EventHub();
    forwardEvents(hub, () => {
      throw new Error('window destroyed');
    });
    const other = vi.fn<(channel: string, payload: unknown) => void>();
    forwardEvents(hub, other);
    hub.emit('logBatch', { lines: [] });
    expect(other).toHaveBeenCalledWith('switchboard:logBatch', { lines: [] });
  });
});

describe('app:// protocol', () => {
  let root: string;
  let outside: string;
  beforeAll(() => {
    outside = mkdtempSync(join(tmpdir(), 'switchboard-protocol-'));
    root = join(outside, 'renderer');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>ok</title>');
    writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
  });
  afterAll(() => rmSync(outside, { recursive: true, force: true }));

  it('registers app as a standard, secure, fetch-capable scheme', () => {
    const registerSchemesAsPrivileged = vi.fn();
    registerScheme({ registerSchemesAsPrivileged });
    expect(registerSchemesAsPrivileged).toHaveBeenCalledWith(APP_SCHEME_PRIVILEGES);
    expect(APP_SCHEME_PRIVILEGES).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  });

  it('maps paths inside the renderer dir', () => {
    expect(fileForPath(root, '/')).toBe(join(root, 'index.html'));
    expect(fileForPath(root, '/assets/app.js')).toBe(join(root, 'assets', 'app.js'));
    expect(fileForRequestUrl(root, APP_ENTRY_URL)).toBe(join(root, 'index.html'));
    expect(fileForRequestUrl(root, 'app://switchboard/')).toBe(join(root, 'index.html'));
  });

  it.each([
    '/../secret.txt',
    '/../../../../etc/passwd',
    '/assets/../../secret.txt',
    '/%2e%2e%2fsecret.txt',
    '/%2e%2e%2f%2e%2e%2fetc/passwd',
    '/%2E%2E%2Fsecret.txt',
    '/..%2fsecret.txt',
    '/index.html%00.js',
    '/%E0%A4%A', // malformed escape
  ])('rejects the traversal path %s', (path) => {
    expect(fileForPath(root, path)).toBeUndefined();
  });

  it.each([
    'app://switchboard/%2e%2e%2fsecret.txt',
    'app://switchboard/..%2fsecret.txt',
    'app://switchboard/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    'app://switchboard/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  ])('rejects the traversal URL %s', (url) => {
    expect(fileForRequestUrl(root, url)).toBeUndefined();
  });

  it('a literal ../ in a URL is normalised by the URL parser and stays inside the root', () => {
    const file = fileForRequestUrl(root, 'app://switchboard/../../secret.txt');
    expect(file).toBe(join(root, 'secret.txt')); // inside root; it does not exist, so it is a 404
  });

  it('rejects other hosts and schemes', () => {
    expect(fileForRequestUrl(root, 'app://other/index.html')).toBeUndefined();
    expect(fileForRequestUrl(root, 'https://switchboard/index.html')).toBeUndefined();
    expect(fileForRequestUrl(root, 'garbage')).toBeUndefined();
  });

  it('serves files with CSP and nosniff, and 404s escapes and missing files', async () => {
    const handler = createAppProtocolHandler(root);
    const ok = await handler(new Request(APP_ENTRY_URL));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('<title>ok</title>');
    expect(ok.headers.get('content-type')).toMatch(/^text\/html/);
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
    expect(ok.headers.get('content-security-policy')).toContain("script-src 'self'");

    const js = await handler(new Request('app://switchboard/assets/app.js'));
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);

    for (const url of ['app://switchboard/%2e%2e%2fsecret.txt', 'app://switchboard/../secret.txt', 'app://switchboard/nope.js', 'app://switchboard/assets']) {
      const res = await handler(new Request(url));
      expect(res.status, url).toBe(404);
      expect(await res.text()).not.toContain('secret');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }

    const post = await handler(new Request(APP_ENTRY_URL, { method: 'POST', body: 'x' }));
    expect(post.status).toBe(405);
  });
});
