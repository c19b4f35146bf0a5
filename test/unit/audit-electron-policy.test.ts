/**
 * #18 item 11: the two Electron checklist gaps, without Electron. Sign-in URLs may be plain
 * http: only to loopback hosts; a page may send a link to the system browser only right after
 * a user gesture (one link per gesture), otherwise the user is asked. The policy is a pure
 * function; `lockDown` is driven with a fake WebContents to prove it is wired to input events.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { signInUrlVerdict } from '../../contract/sign-in-url';

const fake = vi.hoisted(() => ({
  openExternal: vi.fn(async () => undefined),
  showMessageBox: vi.fn(async () => ({ response: 1, checkboxChecked: false })),
}));

vi.mock('electron', () => {
  const electron = {
    BrowserWindow: { fromWebContents: () => null },
    dialog: { showMessageBox: fake.showMessageBox },
    shell: { openExternal: fake.openExternal },
  };
  return { ...electron, default: electron };
});

const { GESTURE_GRACE_MS, lockDown, windowOpenDecision } = await import('../../main/adapters/electron/window');

describe('sign-in URLs', () => {
  it.each(['http://auth.example/authorize', 'http://10.0.0.5/authorize', 'http://127.evil.example/authorize', 'http://localhost.evil.example/x'])('refuses plain http to %s', (raw) => {
    const verdict = signInUrlVerdict(raw);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain('plain http:');
  });

  it.each(['http://127.0.0.1:8080/authorize', 'http://127.1.2.3/a', 'http://localhost:3000/a', 'http://[::1]:9000/a', 'http://dev.localhost/a', 'https://auth.example/authorize'])('accepts %s', (raw) => {
    expect(signInUrlVerdict(raw).ok).toBe(true);
  });
});

describe('window.open policy', () => {
  const now = 1_000_000;
  it('opens an http(s) link right after a gesture, asks without one, denies the rest', () => {
    expect(windowOpenDecision('https://docs.example/a', now - 10, now)).toEqual({ action: 'open', url: 'https://docs.example/a' });
    expect(windowOpenDecision('https://docs.example/a', now - GESTURE_GRACE_MS - 1, now)).toEqual({ action: 'ask', url: 'https://docs.example/a' });
    expect(windowOpenDecision('https://docs.example/a', undefined, now)).toEqual({ action: 'ask', url: 'https://docs.example/a' });
    expect(windowOpenDecision('https://docs.example/a', now + 50, now)).toEqual({ action: 'ask', url: 'https://docs.example/a' });
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'https://user:pw@x.example/', 'app://switchboard/x']) {
      expect(windowOpenDecision(url, now, now)).toEqual({ action: 'deny' });
    }
  });
});

/** Just enough of a WebContents for lockDown. */
function fakeContents() {
  const listeners = new Map<string, ((...args: unknown[]) => void)[]>();
  let openHandler: ((details: { url: string }) => { action: string }) | undefined;
  const contents = {
    session: { setPermissionRequestHandler: vi.fn(), setPermissionCheckHandler: vi.fn() },
    on: (event: string, listener: (...args: unknown[]) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return contents;
    },
    setWindowOpenHandler: (handler: typeof openHandler) => {
      openHandler = handler;
    },
  };
  return {
    contents,
    input: (type: string) => {
      for (const listener of listeners.get('input-event') ?? []) listener({}, { type });
    },
    open: (url: string) => openHandler!({ url }),
  };
}

describe('lockDown', () => {
  beforeEach(() => {
    fake.openExternal.mockClear();
    fake.showMessageBox.mockClear();
  });

  it('sends a link to the system browser after a click, once; without a gesture it asks first', async () => {
    let clock = 5_000;
    const page = fakeContents();
    lockDown(page.contents as never, () => false, () => clock);

    // A page opening a link on its own: nothing opens, the user is asked (and says no).
    expect(page.open('https://phish.example/')).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(fake.showMessageBox).toHaveBeenCalledTimes(1));
    expect(fake.openExternal).not.toHaveBeenCalled();

    // Mouse movement is no gesture; a click is.
    page.input('mouseMove');
    page.open('https://docs.example/1');
    await vi.waitFor(() => expect(fake.showMessageBox).toHaveBeenCalledTimes(2));
    page.input('mouseDown');
    clock += 100;
    page.open('https://docs.example/2');
    expect(fake.openExternal).toHaveBeenCalledWith('https://docs.example/2');
    // One gesture, one link: the next one asks again.
    page.open('https://docs.example/3');
    await vi.waitFor(() => expect(fake.showMessageBox).toHaveBeenCalledTimes(3));
    expect(fake.openExternal).toHaveBeenCalledTimes(1);

    // Saying yes opens it.
    fake.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
    page.open('https://docs.example/4');
    await vi.waitFor(() => expect(fake.openExternal).toHaveBeenCalledWith('https://docs.example/4'));
  });
});
