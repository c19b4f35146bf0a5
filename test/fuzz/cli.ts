/**
 * npm run fuzz -- [--runs N] [--seed S] [--seeds K] [--path P] [--full] [--max-depth D] [--shrink] [--out FILE] [--verbose]
 *
 * Runs N cases per seed (default 100; seed default: random, printed) against a fresh host.
 * `--seeds K` runs K consecutive seeds from S. `--path P` replays one case (the path a failure
 * printed) with `--runs 1`. `--full` uses the big scale (strings of megabytes); `--max-depth D`
 * caps nesting (to look past the deep-value bugs for others). `--out FILE`
 * writes every failure (seed, path, case, what failed) as JSON, ready to pin in
 * test/fuzz/regressions.ts. `--shrink` stops at the first new failure and lets fast-check shrink it
 * to its smallest case (printed with the path that replays it). The last line is the summary; exit
 * code 1 if anything new failed.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CI_SCALE, FULL_SCALE } from './arbitraries';
import { Fuzzer, emptyStats, runSeed, summaryLine } from './run';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    seed: { type: 'string' },
    seeds: { type: 'string', default: '1' },
    path: { type: 'string' },
    full: { type: 'boolean', default: false },
    out: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    'max-depth': { type: 'string' },
    shrink: { type: 'boolean', default: false },
  },
});

const first = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const runs = Number(values.runs);
const seeds = Number(values.seeds);
const stats = emptyStats();
const scale = { ...(values.full ? FULL_SCALE : CI_SCALE), ...(values['max-depth'] ? { maxDepth: Number(values['max-depth']) } : {}) };
const log = (line: string) => process.stdout.write(`${line}\n`);

const fuzzer = await Fuzzer.start();
const started = Date.now();
try {
  for (let seed = first; seed < first + seeds; seed++) {
    log(`seed ${seed}: ${runs} cases${values.path ? ` from path ${values.path}` : ''}`);
    try {
      await runSeed(fuzzer, { seed, runs, scale, path: values.path, log, verbose: values.verbose, shrink: values.shrink }, stats);
    } catch (error) {
      // With --shrink: fast-check's report (the smallest case, its seed and path).
      log(values.shrink ? (error as Error).message.slice(0, 20_000) : `seed ${seed} stopped: ${(error as Error).message.split('\n')[0]}`);
      break;
    }
  }
} finally {
  await fuzzer.close();
}
if (values.out) writeFileSync(values.out, JSON.stringify(stats.failures, null, 2));
log(`states after connect: ${JSON.stringify(stats.states)}; hosts started: ${fuzzer.hostsStarted}; ${((Date.now() - started) / 1000).toFixed(1)} s`);
log(summaryLine(stats));
process.exitCode = stats.failed ? 1 : 0;
