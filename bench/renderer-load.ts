/**
 * How fast the renderer loads (#15 item 4): the size of its first script, and how soon a cold page
 * paints and shows an interactive server list in Chromium. Run by `npm run bench` (which builds
 * first), or alone:
 *
 *   npx electron-vite build && npx tsx bench/renderer-load.ts
 *
 * Initial script. Every JS file out/renderer/index.html loads before any lazy import: its module
 * script, its modulepreload links, and (followed here, in case a build stops emitting preload
 * links) every static `import … from "./x.js"` of those files; uncompressed bytes on disk. Goal:
 * ≤ 1.1 MB (1,100,000 bytes), with the Charts and Timeline views in chunks of their own outside
 * that set (views loaded on demand). The files and their sizes are printed, with the chunk count.
 *
 * Page loads. Browser mode (out/main/web.js, its own settings directory) with one configured
 * server, the everything fixture over stdio, connected. Each load is a fresh Chromium context (no
 * HTTP cache: a cold load) that opens the app's URL. In the page, from navigation start:
 *   - time to first paint: the `first-contentful-paint` paint-timing entry;
 *   - time to an interactive server list: the first animation frame at which the sidebar's
 *     server row is laid out and is what a click at its centre would hit (nothing covers it).
 *     Each load then clicks the row and checks that it became the selected one, so a row that was
 *     present but not yet answering clicks would show as a failed load, not as a figure.
 * One warm-up load (browser and server caches), then BENCH_RENDERER_LOADS loads; the medians are
 * printed (both figures are info rows: the machine is shared, so they are for the record).
 *
 * Knobs (env): BENCH_RENDERER_LOADS (5 cold loads after the warm-up), SWITCHBOARD_CHROMIUM
 * (/usr/bin/chromium).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from '@playwright/test';
import { launchChromium } from './support/chromium';
import { stdioFixtureCommand } from '../test/fixtures/everything/harness';
import { mainCall, startBrowserMode, type BrowserModeApp } from '../test/e2e/support/browser-mode';
import { missed, printGoals, type GoalRow } from './goals';
import { envInt, median } from './stats';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RENDERER_OUT = join(ROOT, 'out/renderer');
/** 1.1 MB, in bytes (decimal megabytes, as the goal is written). */
export const INITIAL_SCRIPT_BUDGET = 1_100_000;
/** Views that must load on demand: their chunks exist and are not part of the first script. */
const ON_DEMAND_VIEWS = ['ChartsView', 'TimelineView'];

const CONFIG = {
  loads: envInt('BENCH_RENDERER_LOADS', 5, 1),
};

export interface InitialScript {
  /** The files index.html loads before any lazy import, relative to out/renderer, with their bytes. */
  files: { file: string; bytes: number }[];
  bytes: number;
  /** Every JS chunk the build emitted (initial and lazy). */
  chunks: number;
  /** ON_DEMAND_VIEWS whose chunk is missing or part of the first script. */
  notOnDemand: string[];
}

/** A static import of another chunk in (minified or not) ES module code; `import(` is a dynamic one and does not match. */
const STATIC_IMPORT = /(?:\bimport|\bexport)\s*(?:[\w$*{}\s,]+?\s*from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;

/** Reads out/renderer (or `dir`): what its index.html loads first, and how many chunks there are. */
export function measureInitialScript(dir = RENDERER_OUT): InitialScript {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const start = new Set<string>();
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) {
    const src = /\bsrc="([^"]+)"/.exec(tag)?.[1];
    if (src && /\btype="module"/.test(tag)) start.add(posix.normalize(src));
  }
  for (const tag of html.match(/<link\b[^>]*>/g) ?? []) {
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (href && /\brel="modulepreload"/.test(tag)) start.add(posix.normalize(href));
  }
  const initial = new Set<string>();
  const todo = [...start];
  while (todo.length) {
    const file = todo.pop()!;
    if (initial.has(file)) continue;
    initial.add(file);
    const code = readFileSync(join(dir, file), 'utf8');
    for (const m of code.matchAll(STATIC_IMPORT)) todo.push(posix.join(posix.dirname(file), m[1]!));
  }
  const files = [...initial].map((file) => ({ file, bytes: statSync(join(dir, file)).size })).sort((a, b) => b.bytes - a.bytes);
  const assets = readdirSync(join(dir, 'assets')).filter((f) => f.endsWith('.js'));
  const notOnDemand = ON_DEMAND_VIEWS.filter((view) => {
    const chunk = assets.find((f) => f.startsWith(`${view}-`));
    return !chunk || initial.has(`assets/${chunk}`);
  });
  return { files, bytes: files.reduce((a, f) => a + f.bytes, 0), chunks: assets.length, notOnDemand };
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

/** In the page from its first script on: the first frame at which the server row could take a click. */
const WATCH_SERVER_ROW = `(() => {
  const tick = () => {
    const row = document.querySelector('[data-testid="server-item"]');
    if (row) {
      const r = row.getBoundingClientRect();
      const hit = r.width > 0 && r.height > 0 ? document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) : null;
      if (hit && row.contains(hit)) {
        window.__serverRowInteractiveAt = performance.now();
        return;
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

interface Load {
  firstPaintMs: number;
  interactiveMs: number;
}

async function coldLoad(browser: Browser, app: BrowserModeApp, serverName: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    await context.addInitScript(WATCH_SERVER_ROW);
    const page = await context.newPage();
    await page.goto(app.url);
    const handle = await page.waitForFunction(() => (globalThis as { __serverRowInteractiveAt?: number }).__serverRowInteractiveAt, undefined, { timeout: 30_000 });
    const interactiveMs = (await handle.jsonValue()) as number;
    // The paint entry is queued after the frame that painted: wait for it rather than read it once.
    const firstPaintMs = await page
      .waitForFunction(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime, undefined, { timeout: 5_000 })
      .then((h) => h.jsonValue() as Promise<number>)
      .catch(() => NaN);
    // The row answers a click: it becomes the selected server (its border takes the primary colour).
    const row = page.locator(`[data-testid="server-item"][data-server-name="${serverName}"]`);
    await row.click({ timeout: 10_000 });
    await page.waitForFunction((el) => (el as unknown as { style: { border: string } }).style.border.includes('primary-color-filled'), await row.elementHandle(), { timeout: 10_000 });
    if (!Number.isFinite(firstPaintMs)) throw new Error('no first-contentful-paint entry');
    return { firstPaintMs, interactiveMs };
  } finally {
    await context.close();
  }
}

async function measurePageLoads(): Promise<Load[]> {
  const app = await startBrowserMode();
  let browser: Browser | undefined;
  try {
    const { command, args } = stdioFixtureCommand();
    const name = 'everything (stdio)';
    const added = await mainCall(app, 'addServer', { name, target: { type: 'stdio', command, args } });
    if (!added.ok) throw new Error(`addServer: ${added.error?.message}`);
    const connected = await mainCall(app, 'connectServer', { id: (added.result as { id: string }).id });
    if (!connected.ok) throw new Error(`connectServer: ${connected.error?.message}`);
    browser = await launchChromium();
    await coldLoad(browser, app, name); // warm-up: browser start, the server's file cache
    const loads: Load[] = [];
    for (let i = 0; i < CONFIG.loads; i++) {
      const load = await coldLoad(browser, app, name);
      console.log(`renderer load ${i + 1}/${CONFIG.loads}: first paint ${load.firstPaintMs.toFixed(0)} ms, interactive server list ${load.interactiveMs.toFixed(0)} ms`);
      loads.push(load);
    }
    return loads;
  } finally {
    await browser?.close();
    await app.close();
  }
}

export async function rendererLoadWorkload(): Promise<GoalRow[]> {
  const SCRIPT = 'renderer initial script';
  const GOAL = '≤ 1.1 MB, views loaded on demand';
  if (!existsSync(join(RENDERER_OUT, 'index.html'))) {
    const why = 'not measured: no out/renderer (build first: npx electron-vite build)';
    return [
      { what: SCRIPT, ours: why, goal: GOAL, pass: null },
      { what: 'time to first paint', ours: why, goal: '—', pass: null, info: true },
      { what: 'time to an interactive server list', ours: why, goal: '—', pass: null, info: true },
    ];
  }
  const script = measureInitialScript();
  console.log(`renderer: ${script.chunks} JS chunks; index.html loads ${script.files.length} before any lazy import, ${script.bytes.toLocaleString('en-US')} bytes:`);
  for (const f of script.files) console.log(`  ${f.bytes.toLocaleString('en-US').padStart(10)}  ${f.file}`);
  if (script.notOnDemand.length) console.log(`renderer: not loaded on demand: ${script.notOnDemand.join(', ')}`);
  const rows: GoalRow[] = [
    {
      what: SCRIPT,
      ours: `${mb(script.bytes)} in ${script.files.length} files (${script.chunks} chunks)${script.notOnDemand.length ? `; in the first script: ${script.notOnDemand.join(', ')}` : ''}`,
      goal: GOAL,
      pass: script.bytes <= INITIAL_SCRIPT_BUDGET && script.notOnDemand.length === 0,
    },
  ];
  try {
    const loads = await measurePageLoads();
    const range = (values: number[]) => `median of ${values.length} cold loads, ${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
    const paint = loads.map((l) => l.firstPaintMs);
    const interactive = loads.map((l) => l.interactiveMs);
    rows.push(
      { what: 'time to first paint', ours: `${median(paint).toFixed(0)} ms (${range(paint)})`, goal: '—', pass: null, info: true },
      { what: 'time to an interactive server list', ours: `${median(interactive).toFixed(0)} ms (${range(interactive)})`, goal: '—', pass: null, info: true },
    );
  } catch (error) {
    const why = `not measured: ${(error as Error).message.split('\n')[0]}`;
    console.log(`renderer: the page loads failed: ${(error as Error).stack ?? String(error)}`);
    rows.push({ what: 'time to first paint', ours: why, goal: '—', pass: null }, { what: 'time to an interactive server list', ours: why, goal: '—', pass: null });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await rendererLoadWorkload();
  printGoals(rows);
  process.exit(missed(rows) > 0 || rows.some((r) => r.pass === null && !r.info) ? 1 : 0);
}
