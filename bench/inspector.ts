/**
 * Side by side with the official MCP Inspector (#15 item 5): one flood, the same server and the
 * same count for both apps, each in Chromium, measured the same way. Run by `npm run bench`
 * (wired into bench/run.ts as `inspectorWorkload()`), or alone:
 *
 *   npx electron-vite build && npx tsx bench/inspector.ts
 *
 * The server: one everything-fixture process (test/fixtures/everything), Streamable HTTP, legacy
 * era with sessions — the transport both apps speak; its `flood` tool sends `count`
 * notifications/message ("flood i/count") on the call's POST stream, then answers.
 *
 * The apps, one after the other, each in its own Chromium (/usr/bin/chromium, Playwright):
 * - Switchboard: browser mode (out/main/web.js, a fresh data directory). The server is added
 *   through the Add server form; the call goes from the Tools view (JSON arguments, Call), then
 *   Traffic is opened, as in the stress e2e. Notifications are Traffic rows.
 * - The official Inspector 2.12.0 (node_modules/@modelcontextprotocol/inspector, a dev
 *   dependency) on a Node ≥ 22.19 (it refuses older ones): the one we ship offline in
 *   tools/node-runtime, or $SWITCHBOARD_NODE22. Its web client runs headless: `--web --transport
 *   http --server-url URL` preconfigures the server, CLIENT_PORT a free port, a fixed
 *   MCP_INSPECTOR_API_TOKEN (the page URL carries it), MCP_AUTO_OPEN_ENABLED=false (no browser),
 *   the secret store in memory and HOME/MCP_STORAGE_DIR in a temporary directory. The bench
 *   clicks its Connect switch, Tools, Flood, types the count and clicks Execute Tool.
 *   Notifications are entries of its Log Stream (the sidebar's Logs tab, newest first; it keeps
 *   the newest 1,000).
 *
 * Measured in the page (bench/support/flood-probe.ts: requestAnimationFrame, pushed out as it
 * happens, so a frozen page still leaves what it did before it froze):
 * 1. time from the click on the call button until the last notification is on screen
 *    (Inspector: the entry "flood N/N" inside its scroll box; Switchboard: the Traffic row of the
 *    last notifications/message event, its seq read from main's trace);
 * 2. how many of the flood's notifications the view holds at the end (Inspector: Log Stream
 *    entries "flood i/N"; Switchboard: the Traffic method filter "notifications/message", its
 *    "matching" count);
 * 3. frame times from the click until (1) (or until the deadline: a frame still open then counts
 *    as one frame at least as long as the time since the page last pushed anything), and the
 *    share of that span spent in frames longer than 50 ms — a page frozen in one endless frame
 *    draws few frames, so its p95 over frames can look smooth while the share shows the freeze;
 * 4. memory after the flood: the page's JS heap in use (CDP Performance.getMetrics
 *    JSHeapUsedSize; a frozen page does not answer it) and the resident memory of the browser's
 *    renderer processes (their pids from CDP SystemInfo.getProcessInfo, VmRSS from /proc: read
 *    without the page's help).
 * Screenshots (test-results/bench/, gitignored): inspector-switchboard.png and inspector-official.png
 * at the end of the flood, inspector-official-before.png just before the Inspector's call (a frozen
 * page renders no screenshot).
 *
 * Rows: "vs official Inspector 2.12, N notifications: …", ours against theirs; each passes when
 * ours is ahead ("shown": all N, and at least theirs — nobody can show more than all).
 *
 * Knobs (env): BENCH_INSPECTOR_FLOOD (1000 notifications), BENCH_INSPECTOR_TIMEOUT_MS (150000: how
 * long each app may take to show the last one; past it the figure is "did not finish"),
 * BENCH_INSPECTOR_APPS (switchboard,inspector: run one side only to look at it).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from '@playwright/test';
import { launchChromium } from './support/chromium';
import { projectRoot, runtimePackageBinary } from '../main/core/conformance/runtime';
import { startFixture, type RunningFixture } from '../test/fixtures/everything/harness';
import { freePort } from '../test/support/core-calls';
import { mainCall, openApp, startBrowserMode, type BrowserModeApp } from '../test/e2e/support/browser-mode';
import { filterMethod, frameStats, openTraffic, startToolCall, trafficCount, waitForFiltered, type FrameStats } from '../test/e2e/support/traffic';
import { addServer } from '../test/e2e/support/ui';
import { missed, printGoals, type GoalRow } from './goals';
import { envInt } from './stats';
import { installFloodProbe, pageHeapBytes, rendererRssBytes, within, type FloodProbe } from './support/flood-probe';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHOTS = join(ROOT, 'test-results', 'bench');
const INSPECTOR_VERSION = '2.12';

const CONFIG = {
  flood: envInt('BENCH_INSPECTOR_FLOOD', 1000, 1),
  timeoutMs: envInt('BENCH_INSPECTOR_TIMEOUT_MS', 150_000, 1000),
  apps: new Set((process.env['BENCH_INSPECTOR_APPS'] ?? 'switchboard,inspector').split(',').map((s) => s.trim())),
};

const VIEWPORT = { width: 1400, height: 900 };

/** What one app did with the flood. */
interface AppResult {
  app: string;
  /** Why nothing was measured (the app could not run here). */
  problem?: string;
  /** Click → last notification on screen, ms; undefined: not within the timeout. */
  visibleMs?: number;
  /** The flood's notifications the view holds at the end; undefined: the page did not answer. */
  shown?: number;
  frames?: FrameStats;
  /** A frame still open at the deadline: at least this long (ms). */
  openFrameMs?: number;
  heapBytes?: number;
  /** The page's JS heap just before the call (for scale when the figure after is missing). */
  heapBeforeBytes?: number;
  /** The browser's renderer processes, resident (read from /proc: needs nothing of the page). */
  rssBytes?: number;
  /** The measured span (click → last visible, or → the deadline), ms. */
  spanMs?: number;
  screenshot?: string;
  notes: string[];
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const secs = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const launch = (): Promise<Browser> => launchChromium();

/** Waits for the probe to see the last notification, or the deadline; returns the page time it was seen. */
async function waitVisible(probe: FloodProbe, deadline: number, lastSeq: () => Promise<number | undefined>): Promise<number | undefined> {
  let seq: number | undefined;
  let asked = 0;
  while (Date.now() < deadline) {
    if (seq === undefined && Date.now() - asked >= 250) {
      asked = Date.now();
      seq = await lastSeq();
    }
    const at = probe.visibleAt(seq);
    if (at !== undefined) return at;
    await new Promise((done) => setTimeout(done, 100));
  }
  return undefined;
}

/** Frame figures for [click, end]; `end` undefined: the deadline, with the frame open since the page's last push. */
function framesOf(probe: FloodProbe, clickAt: number, end: number | undefined, deadline: number, startedAt: number): { frames: FrameStats; openFrameMs?: number; spanMs: number } {
  if (end !== undefined) return { frames: frameStats(probe.framesBetween(clickAt, end)), spanMs: end - clickAt };
  const deltas = probe.framesBetween(clickAt, Number.POSITIVE_INFINITY);
  const openFrameMs = Math.max(0, deadline - probe.lastPushAt());
  // A frame that had not ended at the deadline is one frame, at least this long (a lower bound).
  if (openFrameMs > 50) deltas.push(openFrameMs);
  return { frames: frameStats(deltas), openFrameMs: openFrameMs > 50 ? openFrameMs : undefined, spanMs: deadline - startedAt };
}

async function screenshot(page: Page, name: string, notes: string[]): Promise<string | undefined> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `inspector-${name}.png`);
  const shot = await within(20_000, page.screenshot({ path, timeout: 20_000 }));
  if (shot === undefined) {
    notes.push('the page did not render a screenshot within 20 s');
    return undefined;
  }
  return path;
}

// ---------------------------------------------------------------------------------------
// Switchboard

async function runSwitchboard(fixture: RunningFixture): Promise<AppResult> {
  const result: AppResult = { app: 'Switchboard', notes: [] };
  if (!existsSync(join(ROOT, 'out/main/web.js'))) return { ...result, problem: 'out/main/web.js is missing: build first (npx electron-vite build)' };
  let app: BrowserModeApp | undefined;
  let browser: Browser | undefined;
  try {
    app = await startBrowserMode();
    browser = await launch();
    const page = await browser.newPage({ viewport: VIEWPORT });
    page.setDefaultTimeout(30_000);
    await openApp(page, app);
    await addServer(page, { name: 'flood', url: fixture.url });
    await page.locator('[data-testid="server-item"][data-server-name="flood"][data-state="connected"]').waitFor();
    await openTraffic(page);
    const running = app;
    const query = async (args: Record<string, unknown>) => {
      const reply = await mainCall(running, 'traceQuery', { methods: ['notifications/message'], ...args });
      if (!reply.ok) throw new Error(`traceQuery: ${reply.error?.message}`);
      return reply.result as { events: { seq: number; ts: number; body?: { params?: { data?: unknown } } }[]; nextCursor?: number };
    };
    // Main's own count of notifications/message events (paged).
    const notifications = async () => {
      let count = 0;
      let cursor: number | undefined;
      do {
        const page = await query({ order: 'asc', limit: 5000, ...(cursor === undefined ? {} : { cursor }) });
        count += page.events.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return count;
    };
    const before = await notifications();

    const probe = await installFloodProbe(page, '[data-testid="tool-call"]', { kind: 'seq', selector: '[data-testid="traffic-row"][data-method="notifications/message"]' });
    result.heapBeforeBytes = await pageHeapBytes(page);
    const startedAt = Date.now();
    await startToolCall(page, 'flood__flood', { count: CONFIG.flood });
    await openTraffic(page);
    const deadline = startedAt + CONFIG.timeoutMs;
    // The last notification's seq, once main has it: the newest notifications/message says "flood N/N".
    let lastTs: number | undefined;
    const lastSeq = async () => {
      const newest = (await query({ order: 'desc', limit: 1 })).events[0];
      if (newest?.body?.params?.data !== `flood ${CONFIG.flood}/${CONFIG.flood}`) return undefined;
      lastTs = newest.ts;
      return newest.seq;
    };
    const visibleAt = await waitVisible(probe, deadline, lastSeq);
    const clickAt = probe.clickAt();
    if (clickAt === undefined) throw new Error('the click on Call was not seen by the page');
    if (visibleAt !== undefined) result.visibleMs = visibleAt - clickAt;
    if (visibleAt !== undefined && lastTs !== undefined) {
      // Page time → epoch: both clocks are this machine's.
      const origin = await page.evaluate(() => performance.timeOrigin);
      const arrived = lastTs - (origin + clickAt);
      result.notes.push(`the last notification reached main ${secs(arrived)} after the click, and was on screen ${secs(visibleAt - clickAt - arrived)} after that`);
    }
    Object.assign(result, framesOf(probe, clickAt, visibleAt, deadline, startedAt));
    await probe.stop();
    result.heapBytes = await pageHeapBytes(page);
    result.rssBytes = await rendererRssBytes(browser);
    result.screenshot = await screenshot(page, 'switchboard', result.notes);

    // How many the view holds: Traffic's method filter, its "matching" count.
    await filterMethod(page, 'notifications/message');
    await waitForFiltered(page);
    const matching = await trafficCount(page);
    result.shown = matching - before;
    const main = (await notifications()) - before;
    if (main !== CONFIG.flood) result.notes.push(`main recorded ${int(main)} of the flood's notifications`);
  } catch (error) {
    result.problem ??= `failed: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    await browser?.close().catch(() => undefined);
    await app?.close();
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// The official Inspector

const major = (version: string) => version.replace(/^v/, '').split('.').map(Number);
const atLeast = (version: string, want: number[]) => {
  const v = major(version);
  for (let i = 0; i < want.length; i++) if ((v[i] ?? 0) !== want[i]) return (v[i] ?? 0) > want[i]!;
  return true;
};

/** A Node the Inspector accepts (≥ 22.19), or a sentence saying why there is none. */
function inspectorNode(): { node: string; version: string } | { problem: string } {
  const root = projectRoot(pathToFileURL(join(ROOT, 'main/core/conformance/runtime.ts')).href) ?? ROOT;
  const candidates = [process.env['SWITCHBOARD_NODE22'], runtimePackageBinary(root), process.execPath].filter((c): c is string => !!c);
  const tried: string[] = [];
  for (const node of candidates) {
    try {
      const version = execFileSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
      if (atLeast(version, [22, 19])) return { node, version };
      tried.push(`${node} is ${version}`);
    } catch {
      tried.push(`${node} did not run`);
    }
  }
  return { problem: `the Inspector needs Node ≥ 22.19 and none was found (${tried.join('; ')}); tools/node-runtime installs one (npm install), or set SWITCHBOARD_NODE22` };
}


interface RunningInspector {
  url: string;
  output(): string;
  close(): Promise<void>;
}

async function startInspector(serverUrl: string): Promise<RunningInspector | { problem: string }> {
  const cli = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  if (!existsSync(cli)) return { problem: 'node_modules/@modelcontextprotocol/inspector is not installed (npm install)' };
  const node = inspectorNode();
  if ('problem' in node) return node;
  const home = mkdtempSync(join(tmpdir(), 'switchboard-bench-inspector-'));
  const token = randomBytes(16).toString('hex');
  const child: ChildProcess = spawn(node.node, [cli, '--web', '--transport', 'http', '--server-url', serverUrl], {
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOME: home,
      HOST: '127.0.0.1',
      CLIENT_PORT: String(await freePort()),
      MCP_SANDBOX_PORT: '0',
      MCP_APP_ORIGIN_PORT: '0',
      MCP_INSPECTOR_API_TOKEN: token,
      MCP_AUTO_OPEN_ENABLED: 'false',
      MCP_INSPECTOR_SECRET_STORE: 'memory',
      MCP_STORAGE_DIR: join(home, 'storage'),
    },
  });
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
    if (output.length > 100_000) output = output.slice(-50_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(home, { recursive: true, force: true });
  };
  const url = await new Promise<string | undefined>((done) => {
    const timer = setTimeout(() => done(undefined), 30_000);
    const check = () => {
      const match = /running at:\s+(http:\/\/\S+)/.exec(output);
      if (match && output.includes('Auth token')) {
        clearTimeout(timer);
        done(match[1]);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      done(undefined);
    });
  });
  if (!url) {
    const said = output.trim().split('\n').slice(-5).join(' / ');
    await close();
    return { problem: `the Inspector (${node.version}) did not start within 30 s: ${said}` };
  }
  return { url, output: () => output, close };
}

async function runInspector(fixture: RunningFixture): Promise<AppResult> {
  const result: AppResult = { app: `official Inspector ${INSPECTOR_VERSION}`, notes: [] };
  const inspector = await startInspector(fixture.url);
  if ('problem' in inspector) return { ...result, problem: inspector.problem };
  let browser: Browser | undefined;
  try {
    browser = await launch();
    const page = await browser.newPage({ viewport: VIEWPORT });
    page.setDefaultTimeout(30_000);
    await page.goto(inspector.url);
    // Its one server card: the Connect switch.
    await page.getByText('Disconnected', { exact: true }).waitFor();
    await page.getByRole('switch', { name: /^Connect or disconnect/ }).click({ force: true });
    await page.getByText('Connected', { exact: true }).waitFor();
    await page.locator('label', { hasText: /^Tools$/ }).first().click();
    await page.getByRole('button', { name: /^Flood\s*flood$/ }).click();
    // The flood tool's form: `count`, then `spreadMs` (left at its default), in the schema's order.
    const count = page.locator('input.mantine-NumberInput-input').first();
    await count.fill(String(CONFIG.flood));
    const execute = page.getByRole('button', { name: 'Execute Tool' });
    await execute.evaluate((el) => el.setAttribute('data-bench-call', ''));
    const probe = await installFloodProbe(page, '[data-bench-call]', { kind: 'text', selector: 'p[data-variant="consoleLine"]', text: `flood ${CONFIG.flood}/${CONFIG.flood}` });
    // Where it stands before the call: the screenshot at the end may not come (a frozen page draws nothing).
    await screenshot(page, 'official-before', result.notes);
    result.heapBeforeBytes = await pageHeapBytes(page);
    const startedAt = Date.now();
    await execute.click();
    const deadline = startedAt + CONFIG.timeoutMs;
    const visibleAt = await waitVisible(probe, deadline, async () => undefined);
    const clickAt = probe.clickAt();
    if (clickAt === undefined) throw new Error('the click on Execute Tool was not seen by the page');
    if (visibleAt !== undefined) result.visibleMs = visibleAt - clickAt;
    else result.notes.push(`its page last drew a frame ${secs(Date.now() - probe.lastPushAt())} before the deadline`);
    Object.assign(result, framesOf(probe, clickAt, visibleAt, deadline, startedAt));
    result.heapBytes = await pageHeapBytes(page);
    result.rssBytes = await rendererRssBytes(browser);
    if (result.heapBytes === undefined) result.notes.push('its page did not answer CDP Performance.getMetrics within 10 s');
    result.screenshot = await screenshot(page, 'official', result.notes);
    const pattern = `^flood \\d+/${CONFIG.flood}$`;
    result.shown = await within(
      10_000,
      page.evaluate((source) => {
        const re = new RegExp(source);
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> } }).document;
        return Array.from(doc.querySelectorAll('p[data-variant="consoleLine"]')).filter((p) => re.test(p.textContent ?? '')).length;
      }, pattern),
    );
    if (result.shown === undefined) result.notes.push('its page did not answer a count of its Log Stream entries within 10 s');
  } catch (error) {
    result.problem ??= `failed: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    await within(15_000, browser?.close() ?? Promise.resolve());
    await inspector.close();
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// Rows

type Figure = 'visible' | 'shown' | 'frames' | 'long' | 'heap' | 'rss';

/** Share of the measured span spent in frames longer than 50 ms (a frame still open at the deadline included). */
const longShare = (r: AppResult): number | undefined => (r.frames && r.spanMs ? Math.min(1, r.frames.longMs / r.spanMs) : undefined);

function describe(r: AppResult | undefined, figure: Figure): string {
  if (!r) return 'not run';
  if (r.problem) return r.problem;
  switch (figure) {
    case 'visible':
      return r.visibleMs === undefined ? `did not finish in ${secs(CONFIG.timeoutMs)}` : secs(r.visibleMs);
    case 'shown':
      return r.shown === undefined ? 'page did not answer' : `${int(r.shown)} of ${int(CONFIG.flood)}`;
    case 'frames':
      return r.frames ? `p95 ${r.frames.p95} ms (max ${r.openFrameMs ? '≥ ' : ''}${int(r.frames.max)} ms, ${int(r.frames.frames)} frames)` : '-';
    case 'long': {
      const share = longShare(r);
      return share === undefined ? '-' : `${(share * 100).toFixed(0)} % of ${secs(r.spanMs!)}`;
    }
    case 'heap':
      return r.heapBytes === undefined ? 'page did not answer' : mb(r.heapBytes);
    case 'rss':
      return r.rssBytes === undefined ? 'not read' : mb(r.rssBytes);
  }
}

function rows(ours: AppResult | undefined, theirs: AppResult | undefined): GoalRow[] {
  const what = (figure: string) => `vs official Inspector ${INSPECTOR_VERSION}, ${int(CONFIG.flood)} notifications: ${figure}`;
  const goal = (figure: Figure, lead = 'ahead of the Inspector') => `${lead} (theirs: ${describe(theirs, figure)})`;
  const measured = !!ours && !ours.problem && !!theirs && !theirs.problem;
  const compare = (better: (o: AppResult, t: AppResult) => boolean | null): boolean | null => (measured ? better(ours, theirs) : null);
  return [
    {
      what: what('time until the last is visible'),
      ours: describe(ours, 'visible'),
      goal: goal('visible'),
      pass: compare((o, t) => o.visibleMs !== undefined && (t.visibleMs === undefined || o.visibleMs < t.visibleMs)),
    },
    {
      what: what('shown'),
      ours: describe(ours, 'shown'),
      goal: goal('shown', `all ${int(CONFIG.flood)}, ≥ the Inspector`),
      pass: compare((o, t) => o.shown === CONFIG.flood && (t.shown === undefined || o.shown >= t.shown)),
    },
    {
      what: what('frame p95'),
      ours: describe(ours, 'frames'),
      goal: goal('frames', 'lower p95 than the Inspector'),
      pass: compare((o, t) => !!o.frames && !!t.frames && o.frames.p95 < t.frames.p95),
    },
    {
      what: what('time in frames > 50 ms'),
      ours: describe(ours, 'long'),
      goal: goal('long', 'less than the Inspector'),
      pass: compare((o, t) => {
        const [a, b] = [longShare(o), longShare(t)];
        return a !== undefined && b !== undefined && a < b;
      }),
    },
    {
      what: what('page memory (JS heap used)'),
      ours: describe(ours, 'heap'),
      goal: goal('heap', 'less than the Inspector'),
      pass: compare((o, t) => (o.heapBytes === undefined ? false : t.heapBytes === undefined ? null : o.heapBytes < t.heapBytes)),
    },
    {
      what: what('renderer memory (RSS)'),
      ours: describe(ours, 'rss'),
      goal: goal('rss', 'less than the Inspector'),
      pass: compare((o, t) => (o.rssBytes === undefined || t.rssBytes === undefined ? null : o.rssBytes < t.rssBytes)),
    },
  ];
}

function printSideBySide(results: AppResult[]): void {
  console.log(`\nflood side by side: ${int(CONFIG.flood)} notifications/message on one POST stream, Streamable HTTP (legacy era), timeout ${secs(CONFIG.timeoutMs)}`);
  const cells = [['app', 'last visible', 'shown', 'frames', 'in frames > 50 ms', 'page JS heap', 'renderers RSS']];
  for (const r of results) cells.push([r.app, describe(r, 'visible'), describe(r, 'shown'), describe(r, 'frames'), describe(r, 'long'), describe(r, 'heap'), describe(r, 'rss')]);
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  for (const [i, row] of cells.entries()) {
    console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  for (const r of results) {
    if (r.frames) console.log(`${r.app}: frames from the click p50=${r.frames.p50} p95=${r.frames.p95} p99=${r.frames.p99} max=${r.frames.max} ms; ${r.frames.long} longer than 50 ms (${int(r.frames.longMs)} ms in all)${r.openFrameMs ? `; one still open at the deadline, ≥ ${secs(r.openFrameMs)}` : ''}`);
    if (r.heapBeforeBytes !== undefined) console.log(`${r.app}: page JS heap just before the call ${mb(r.heapBeforeBytes)}`);
    for (const note of r.notes) console.log(`${r.app}: ${note}`);
    if (r.screenshot) console.log(`${r.app}: screenshot ${r.screenshot}`);
  }
}

export async function inspectorWorkload(): Promise<GoalRow[]> {
  const fixture = await startFixture({ transport: 'http', era: 'legacy', sessions: true });
  const results: AppResult[] = [];
  let ours: AppResult | undefined;
  let theirs: AppResult | undefined;
  try {
    // Ours first: a frozen Inspector tab then cannot load the machine while ours runs.
    if (CONFIG.apps.has('switchboard')) results.push((ours = await runSwitchboard(fixture)));
    if (CONFIG.apps.has('inspector')) results.push((theirs = await runInspector(fixture)));
  } finally {
    await fixture.close();
  }
  printSideBySide(results);
  return rows(ours, theirs);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const goals = await inspectorWorkload();
  printGoals(goals);
  process.exit(missed(goals) > 0 ? 1 : 0);
}
