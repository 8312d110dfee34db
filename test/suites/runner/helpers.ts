import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SuiteResult } from '../../../src/harness/results.js';
import { type RunOptions, runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import { createRunnerSuite } from '../../../src/suites/runner/index.js';
import {
  type ExpectedVerdicts,
  statusById,
  expectedStatuses as statusesOf,
  verdictById,
  verdictPhrase,
} from '../../broken-verdicts.js';
import { determinismJobs } from '../../determinism-jobs.js';

/** Seed of every suite run in these tests, so that they are reproducible. */
export const SEED = 20261122;

/** The suite with small property caps: these tests judge the checks, not the runners' breadth. */
export const testSuite = createRunnerSuite({ maxCommandRuns: 3, maxShrinkRuns: 3 });

/** `node runners/<name>.mjs` as a target command. */
export function runnerCommand(name: string): string {
  const file = fileURLToPath(new URL(`./runners/${name}.mjs`, import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(file)}`;
}

export function runAgainst(runner: string, options: RunOptions = {}): Promise<SuiteResult> {
  return runSuite(testSuite, { runner }, { seed: SEED, runs: 3, ...options });
}

/** `id: status: message` for every check that did not pass, for readable assertion diffs. */
export function notPassed(result: SuiteResult): string[] {
  return result.checks
    .filter((c) => c.status === 'fail' || c.status === 'warn')
    .map((c) => `${c.id}: ${c.status}: ${c.message}`);
}

export { statusById };

/** A broken runner, the checks it must fail or warn on, and neighbours it must still pass. */
export interface BrokenCase extends ExpectedVerdicts {
  readonly runner: string;
  readonly flaw: string;
  /** The test's own timeout, for a runner whose every session lasts long (60 s otherwise). */
  readonly timeoutMs?: number;
}

/** The statuses a broken case expects, keyed by full check id (`runner.` + the short id). */
export function expectedStatuses(c: BrokenCase): Record<string, string> {
  return statusesOf(c, 'runner');
}

/** The test name of a broken case: the flaw and its verdicts. */
export function brokenCaseTitle(c: BrokenCase): string {
  return `a runner that ${c.flaw} ${verdictPhrase(c)}`;
}

/** Run only the checks a broken case names. */
export function runBrokenCase(c: BrokenCase): Promise<SuiteResult> {
  return runAgainst(runnerCommand(c.runner), { only: Object.keys(expectedStatuses(c)) });
}

/**
 * Whether runners/base.mjs can put commands in a PID namespace here (the same probe it
 * makes: bubblewrap, as nobody when root). Without one, nothing catches a setsid escapee.
 */
export function pidNamespaceAvailable(): boolean {
  const ids = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const args = [
    '--unshare-pid',
    '--die-with-parent',
    '--bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    'true',
  ];
  try {
    return spawnSync('bwrap', args, { ...ids, stdio: 'ignore', timeout: 5000 }).status === 0;
  } catch {
    return false;
  }
}

/** Runs of one target with one seed whose verdicts must agree. */
export const DETERMINISM_RUNS = 5;

/**
 * The verdict set (check id -> status, a skip by its kind: verdictById) of each of
 * DETERMINISM_RUNS runs in a row, with --jobs 1 and the default in turn.
 */
export async function verdictSets(
  runner: string,
  only: readonly string[],
): Promise<Record<string, string>[]> {
  const sets: Record<string, string>[] = [];
  for (let i = 0; i < DETERMINISM_RUNS; i++) {
    sets.push(verdictById(await runAgainst(runner, { only, jobs: determinismJobs(i) })));
  }
  return sets;
}
