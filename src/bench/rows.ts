import { z } from 'zod';
import { median, pairedRatio } from './stats.js';

/**
 * One line of reports/bench.json. `ratio` compares `value` with `baseline` (higher is
 * better) and `goal` is the ratio aimed for (0 for a row that gives context only). Later parts of the project add rows of their
 * own to the same file, so the shape is the contract.
 */
export const BenchRow = z.object({
  name: z.string().min(1),
  value: z.number(),
  unit: z.string(),
  baseline: z.number(),
  ratio: z.number(),
  /** 0: a context row (a peer against the raw baseline, say), shown but aimed at nothing. */
  goal: z.number(),
  /** How the row was measured when that matters for reading it (a machine under load). */
  note: z.string().optional(),
  /**
   * When the part that made the row finished (ISO 8601), and the commit checked out: the
   * report keeps rows of earlier runs, and a part that crashed or was not run today leaves
   * its earlier rows beside today's. Absent on rows written before rows were stamped.
   */
  measuredAt: z.string().optional(),
  commit: z.string().optional(),
});
export type BenchRow = z.infer<typeof BenchRow>;

export const BenchReport = z.array(BenchRow);

/** Numbers as stored: large ones whole, small ones to 4 significant digits. */
export function tidy(x: number): number {
  if (!Number.isFinite(x)) return x;
  return Math.abs(x) >= 1000 ? Math.round(x) : Number(x.toPrecision(4));
}

/** A row comparing two variants measured in the same rounds: medians, and the median paired ratio. */
export function comparisonRow(
  name: string,
  unit: string,
  goal: number,
  values: readonly number[],
  baselines: readonly number[],
): BenchRow {
  return {
    name,
    value: tidy(median(values)),
    unit,
    baseline: tidy(median(baselines)),
    ratio: tidy(pairedRatio(values, baselines)),
    goal,
  };
}

/** A row comparing a measured value with a fixed target. */
export function targetRow(
  name: string,
  unit: string,
  goal: number,
  values: readonly number[],
  target: number,
): BenchRow {
  const value = median(values);
  return { name, value: tidy(value), unit, baseline: target, ratio: tidy(value / target), goal };
}

export function goalMet(row: BenchRow): boolean {
  return row.ratio >= row.goal;
}

/** A row aimed at something (not a context row). */
export function hasGoal(row: BenchRow): boolean {
  return row.goal > 0;
}

/**
 * A row where lower is better (bytes, milliseconds): `value` and `baseline` are the
 * medians as measured, and `ratio` the median per-round baseline/value, so that a higher
 * ratio is still better and `goal` reads "at most 1/goal times the baseline".
 */
export function lowerIsBetterRow(
  name: string,
  unit: string,
  goal: number,
  values: readonly number[],
  baselines: readonly number[],
): BenchRow {
  const swapped = comparisonRow(name, unit, goal, baselines, values);
  return { ...swapped, value: swapped.baseline, baseline: swapped.value };
}

/** A lower-is-better value against a fixed budget: ratio = budget / value. */
export function budgetRow(
  name: string,
  unit: string,
  goal: number,
  values: readonly number[],
  budget: number,
): BenchRow {
  const value = median(values);
  return { name, value: tidy(value), unit, baseline: budget, ratio: tidy(budget / value), goal };
}

/** The same row with a note (none when `note` is undefined). */
export function withNote(row: BenchRow, note: string | undefined): BenchRow {
  if (note === undefined) return row;
  return { ...row, note: row.note === undefined ? note : `${row.note}; ${note}` };
}

/** Where and when rows were measured (BenchRow.measuredAt, BenchRow.commit). */
export interface RowStamp {
  readonly measuredAt: string;
  readonly commit?: string | undefined;
}

/** The rows stamped with when (and on which commit) they were measured. */
export function stampRows(rows: readonly BenchRow[], stamp: RowStamp): BenchRow[] {
  const commit = stamp.commit === undefined ? {} : { commit: stamp.commit };
  return rows.map((r) => ({ ...r, measuredAt: stamp.measuredAt, ...commit }));
}

/** `existing` with every row named in `fresh` replaced (in place) and new ones appended. */
export function mergeRows(existing: readonly BenchRow[], fresh: readonly BenchRow[]): BenchRow[] {
  const byName = new Map(fresh.map((r) => [r.name, r]));
  const merged = existing.map((r) => byName.get(r.name) ?? r);
  const kept = new Set(existing.map((r) => r.name));
  for (const r of fresh) if (!kept.has(r.name)) merged.push(r);
  return merged;
}
