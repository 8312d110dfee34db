import { AsyncLocalStorage } from 'node:async_hooks';
import type { Check } from './check.js';
import type { SuiteResult } from './results.js';

/** Target processes started within one suite run (spawnContained counts them). */
export interface StartCounter {
  count: number;
}

const counters = new AsyncLocalStorage<StartCounter>();

/** Run `fn` (a suite run) counting every target process started within it, its background work included. */
export function countingStarts<T>(counter: StartCounter, fn: () => Promise<T>): Promise<T> {
  return counters.run(counter, fn);
}

/**
 * Run `fn` without counting the processes it starts: one started ahead, in case a check asks
 * for it, is counted (noteTargetStart) when a check takes it, so a run counts the same starts
 * whatever `--jobs` (spare-processes.ts).
 */
export function withoutCounting<T>(fn: () => T): T {
  return counters.exit(fn);
}

/** Called by spawnContained for each process it starts: counted for the suite run it belongs to, if any. */
export function noteTargetStart(): void {
  const counter = counters.getStore();
  if (counter !== undefined) counter.count++;
}

/**
 * The longest wait the checks prescribe (Check.prescribedWaitMs): checks that wait run side
 * by side (schedule `waits`), so a run takes at least the longest of them, not their sum.
 */
export function prescribedWaitMs(checks: readonly Pick<Check<never>, 'prescribedWaitMs'>[]): number {
  return checks.reduce((most, c) => Math.max(most, c.prescribedWaitMs ?? 0), 0);
}

/**
 * How many of a run's target starts could overlap: its jobs, or for a suite that starts
 * processes ahead of one-at-a-time checks, the starts it let overlap (`atOnce`).
 */
export function startsAtOnce(result: Pick<SuiteResult, 'jobs' | 'targetStarts'>): number {
  return Math.max(result.jobs ?? 1, result.targetStarts?.atOnce ?? 1);
}
