/**
 * An in-page probe for a notification flood (bench/inspector.ts): frame times, the moment of the
 * click that starts the flood, and when the last notification is on screen, all measured inside
 * the page with `requestAnimationFrame` and pushed out through a Playwright binding as they happen.
 *
 * Pushed, not polled: a page whose main thread is frozen answers no `page.evaluate`, but what it
 * pushed before it froze has arrived, and the frame that never ended is known to be at least as
 * long as the time since its last push (measured here, in Node: a lower bound).
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from '@playwright/test';

/** How the page tells that the last notification is on screen. */
export type LastVisible =
  /** An element matching `selector` whose text is exactly `text` is inside the window and its scroll container. */
  | { kind: 'text'; selector: string; text: string }
  /** Elements matching `selector` carry `data-seq`: the highest one on screen is reported whenever it changes. */
  | { kind: 'seq'; selector: string };

interface Push {
  /** [page time, delta] of each frame since the last push. */
  frames: [number, number][];
  clickAt?: number;
  visibleAt?: number;
  /** [page time, highest seq on screen] whenever it changed (kind `seq`). */
  seqs: [number, number][];
}

export interface FloodProbe {
  /** Page time (performance.now) of the click on the call button; undefined until it happened. */
  clickAt(): number | undefined;
  /** Page time the last notification was first on screen (kind `text`), or the first time a seq ≥ `seq` was (kind `seq`). */
  visibleAt(seq?: number): number | undefined;
  /** Frame deltas (ms) of frames that ended in [from, to] (page time). */
  framesBetween(from: number, to: number): number[];
  /** Node time (Date.now) when the page last pushed anything: while it is frozen, this stops moving. */
  lastPushAt(): number;
  /** Page time of the last frame pushed. */
  lastFrameAt(): number;
  stop(): Promise<void>;
}

let bindingCount = 0;

/**
 * Installs the probe. `callSelector`: the button whose click starts the flood (a capture
 * listener on the document records the click's page time; the click itself is Playwright's).
 */
export async function installFloodProbe(page: Page, callSelector: string, last: LastVisible): Promise<FloodProbe> {
  const frames: [number, number][] = [];
  const seqs: [number, number][] = [];
  let clickAt: number | undefined;
  let visibleAt: number | undefined;
  let lastPushAt = Date.now();
  const binding = `__benchFlood${++bindingCount}`;
  await page.exposeBinding(binding, (_source, push: Push) => {
    lastPushAt = Date.now();
    frames.push(...push.frames);
    seqs.push(...push.seqs);
    clickAt ??= push.clickAt;
    visibleAt ??= push.visibleAt;
  });
  // tsx compiles with esbuild's keepNames: named inner functions call a `__name` helper that
  // exists in this module's scope, not in the page's.
  await page.evaluate('globalThis.__name ??= (fn) => fn');
  await page.evaluate(inPageProbe, { binding, callSelector, last });
  return {
    clickAt: () => clickAt,
    visibleAt: (seq) => {
      if (last.kind === 'text') return visibleAt;
      if (seq === undefined) return undefined;
      return seqs.find(([, s]) => s >= seq)?.[0];
    },
    framesBetween: (from, to) => frames.filter(([t]) => t >= from && t <= to).map(([, d]) => d),
    lastPushAt: () => lastPushAt,
    lastFrameAt: () => frames[frames.length - 1]?.[0] ?? 0,
    stop: async () => {
      await page.evaluate((name) => {
        (globalThis as unknown as Record<string, { stop?: boolean } | undefined>)[`${name}State`]!.stop = true;
      }, binding);
    },
  };
}

// The test tsconfig has no DOM lib: the page globals the probe uses, typed here.
interface PageRect {
  top: number;
  bottom: number;
  left: number;
  right: number;
}
interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): PageRect;
  closest(selector: string): PageElement | null;
  parentElement: PageElement | null;
  scrollHeight: number;
  clientHeight: number;
}
interface PageGlobals {
  document: {
    querySelectorAll(selector: string): ArrayLike<PageElement>;
    addEventListener(type: string, listener: (event: { target: unknown }) => void, capture: boolean): void;
  };
  innerHeight: number;
  innerWidth: number;
  getComputedStyle(el: PageElement): { overflowY: string };
  requestAnimationFrame(callback: (time: number) => void): number;
}

/** Runs in the page (serialized by Playwright: no closures over this module). */
function inPageProbe({ binding, callSelector, last }: { binding: string; callSelector: string; last: LastVisible }): void {
  const g = globalThis as unknown as PageGlobals & Record<string, unknown>;
  const state = { stop: false };
  g[`${binding}State`] = state;
  const send = g[binding] as (push: Push) => void;
  let pending: Push = { frames: [], seqs: [] };
  let lastSend = performance.now();
  let clicked = false;
  let found = false;
  let highest = -1;

  g.document.addEventListener(
    'click',
    (event) => {
      const target = event.target as PageElement | null;
      if (clicked || !target || typeof target.closest !== 'function' || !target.closest(callSelector)) return;
      clicked = true;
      // At once: a page that freezes handling this click would never reach the next frame's push.
      send({ frames: [], seqs: [], clickAt: performance.now() });
    },
    true,
  );

  // On screen: inside the window and inside every scrolling ancestor's box.
  const onScreen = (el: PageElement): boolean => {
    const r = el.getBoundingClientRect();
    if (r.bottom <= 0 || r.top >= g.innerHeight || r.right <= 0 || r.left >= g.innerWidth || r.bottom - r.top <= 0) return false;
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (p.scrollHeight <= p.clientHeight) continue;
      const overflow = g.getComputedStyle(p).overflowY;
      if (overflow !== 'auto' && overflow !== 'scroll' && overflow !== 'hidden') continue;
      const b = p.getBoundingClientRect();
      if (r.bottom <= b.top || r.top >= b.bottom) return false;
    }
    return true;
  };

  let previous = -1;
  const loop = (time: number) => {
    if (previous >= 0) pending.frames.push([time, time - previous]);
    previous = time;
    if (clicked) {
      if (last.kind === 'text' && !found) {
        const els = g.document.querySelectorAll(last.selector);
        for (let i = 0; i < els.length; i++) {
          const el = els[i]!;
          if (el.textContent === last.text && onScreen(el)) {
            found = true;
            pending.visibleAt = time;
            break;
          }
        }
      } else if (last.kind === 'seq') {
        // Only rows above the best so far are checked for being on screen (the check reads layout).
        const els = g.document.querySelectorAll(last.selector);
        let top = -1;
        for (let i = els.length - 1; i >= 0; i--) {
          const seq = Number(els[i]!.getAttribute('data-seq'));
          if (seq > top && seq > highest && onScreen(els[i]!)) top = seq;
        }
        if (top > highest) {
          highest = top;
          pending.seqs.push([time, top]);
        }
      }
    }
    if (time - lastSend >= 250 || pending.visibleAt !== undefined || pending.seqs.length) {
      send(pending);
      pending = { frames: [], seqs: [] };
      lastSend = time;
    }
    if (!state.stop) g.requestAnimationFrame(loop);
  };
  g.requestAnimationFrame(loop);
}

/** `promise`, or `undefined` once `ms` have passed (a frozen page answers nothing). */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), ms);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The page's JS heap in use (CDP Performance.getMetrics, JSHeapUsedSize), or undefined if the page did not answer in time. */
export async function pageHeapBytes(page: Page, timeoutMs = 10_000): Promise<number | undefined> {
  const run = async () => {
    const cdp = await page.context().newCDPSession(page);
    try {
      await cdp.send('Performance.enable');
      const { metrics } = await cdp.send('Performance.getMetrics');
      return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value;
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  };
  return within(timeoutMs, run());
}

/**
 * Resident memory of the browser's renderer processes (CDP SystemInfo.getProcessInfo for their
 * pids, /proc for VmRSS), summed: read without the page's help, so a frozen page has a figure too.
 * Linux only; undefined elsewhere or when the browser did not answer.
 */
export async function rendererRssBytes(browser: Browser, timeoutMs = 10_000): Promise<number | undefined> {
  const run = async () => {
    const cdp = await browser.newBrowserCDPSession();
    try {
      const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
      let total = 0;
      for (const p of processInfo.filter((info) => info.type === 'renderer')) {
        const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${p.id}/status`, 'utf8'))?.[1];
        if (kb === undefined) return undefined;
        total += Number(kb) * 1024;
      }
      return total || undefined;
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  };
  return within(timeoutMs, run());
}
