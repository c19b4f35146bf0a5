/**
 * The hostile-server fuzzer in CI: fixed seeds against the real browser-mode host (built
 * `out/main/web.js`), every invariant of run.ts after every case. A failure prints its seed and
 * path: `npm run fuzz -- --seed S --path P --runs 1` replays it (and regressions.test.ts pins it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCase } from '../fixtures/fuzz/case';
import { Fuzzer, emptyStats, runSeed, summaryLine } from './run';

/** Seeds and cases per seed: about a minute and a half on two busy cores. */
export const CI_SEEDS = [1001, 2002, 3003, 4004];
export const CI_RUNS = 8;

const stats = emptyStats();
let fuzzer: Fuzzer;

beforeAll(async () => {
  fuzzer = await Fuzzer.start();
}, 60_000);

afterAll(async () => {
  await fuzzer?.close();
  process.stdout.write(`${summaryLine(stats)}\n`);
});

describe('hostile servers cannot crash, hang or silently change Switchboard', () => {
  for (const seed of CI_SEEDS) {
    it(`seed ${seed}: ${CI_RUNS} cases`, async () => {
      const before = stats.failures.length;
      await runSeed(fuzzer, { seed, runs: CI_RUNS }, stats);
      const failures = stats.failures.slice(before);
      const report = failures.map((f) => `seed ${f.seed} path ${f.path}:\n  ${f.failures.join('\n  ')}\n  case: ${describeCase(f.case)}`).join('\n');
      expect(failures.length, report).toBe(0);
    }, 180_000);
  }
});
