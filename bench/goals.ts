/**
 * The goals table `npm run bench` ends with: one row per measured figure, ours next to the goal,
 * and whether this run met it. Each workload module returns its rows; bench/run.ts prints them
 * all and exits non-zero when a measured goal was missed.
 */

export interface GoalRow {
  /** What was measured, e.g. "tracked / untracked wall time, 5,000 JSON calls". */
  what: string;
  /** Our figure, with its unit, as printed (e.g. "1.021 (rounds 0.98–1.06)"). */
  ours: string;
  /** The goal, as printed (e.g. "≤ 1.03"). */
  goal: string;
  /** true: met; false: missed; null: not measured in this run (`ours` says why). */
  pass: boolean | null;
  /** A figure printed for the record, with no goal to meet (its `goal` is "—"; `pass` is ignored). */
  info?: boolean;
}

export function printGoals(rows: GoalRow[]): void {
  if (!rows.length) return;
  const cells = [['what', 'ours', 'goal', 'result'], ...rows.map((r) => [r.what, r.ours, r.goal, r.info ? 'info' : r.pass === null ? 'not measured' : r.pass ? 'pass' : 'FAIL'])];
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((r) => r[c]!.length)));
  console.log('\ngoals');
  cells.forEach((r, i) => {
    console.log(r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
}

/** The number of rows that missed their goal. */
export const missed = (rows: GoalRow[]): number => rows.filter((r) => !r.info && r.pass === false).length;
