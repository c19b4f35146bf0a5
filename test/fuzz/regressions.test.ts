/**
 * Every bug the fuzzer found (regressions.ts), pinned as its smallest case, run with the same
 * invariants (run.ts) against the real host. An open bug's test checks that it still fails as its
 * signature says; once fixed it fails — then flip `open` to false and it guards the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fuzzer } from './run';
import { REGRESSIONS } from './regressions';

let fuzzer: Fuzzer;
beforeAll(async () => {
  fuzzer = await Fuzzer.start();
}, 60_000);
afterAll(async () => {
  await fuzzer?.close();
});

describe('fuzz regressions', () => {
  for (const r of REGRESSIONS) {
    it(`${r.open ? '[open] ' : ''}${r.name} (${r.where})`, async () => {
      const result = await fuzzer.runCase(r.case);
      const broken = result.failures.filter((f) => r.invariants.some((i) => f.startsWith(i)));
      if (!r.open) {
        expect(broken, result.failures.join('\n').slice(0, 4000)).toEqual([]);
        return;
      }
      // Still open: the case still fails, exactly as its signature says (fixed? set open: false).
      expect(broken.length, 'the bug no longer shows: set open: false so this case guards the fix').toBeGreaterThan(0);
      for (const f of broken) expect(f).toMatch(r.signature!);
    }, 90_000);
  }
});
