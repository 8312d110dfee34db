import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultJobs } from '../harness/run-suite.js';
import type { BenchRow } from './rows.js';

/** `npm start` on 2 cores, idle, must take less than this (issue 14). */
export const ALL_GOAL_MS = 60_000;

/** The seed of the bench's `all` runs (the suites part uses the same). */
const SEED = 14;

export interface AllRun {
  readonly jobs: number;
  readonly wallMs: number;
  readonly code: number;
  /** The last line of its console: the totals. */
  readonly totals: string;
  readonly loadBefore: number;
  readonly loadAfter: number;
}

/**
 * One `node bin/wirecheck.js all` (what `npm start` runs after the build), timed from spawn
 * to exit, its reports in a temporary directory.
 */
export async function timeAll(jobs: number, extraArgs: readonly string[] = []): Promise<AllRun> {
  const bin = fileURLToPath(new URL('../../bin/wirecheck.js', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-bench-all-'));
  const loadBefore = loadavg()[0] ?? 0;
  try {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [bin, 'all', '--seed', String(SEED), '--jobs', String(jobs), '--report-dir', dir, ...extraArgs],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    // The console of `all` is a few hundred lines: the tail is kept, bounded.
    let tail = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-4096);
    });
    const code = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (status, signal) => resolve(status ?? (signal === null ? 2 : 128)));
    });
    const wallMs = performance.now() - started;
    const totals = tail.trimEnd().split('\n').at(-1) ?? '';
    return { jobs, wallMs, code, totals, loadBefore, loadAfter: loadavg()[0] ?? 0 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function loadNote(run: AllRun): string {
  return `load average ${run.loadBefore.toFixed(2)} before, ${run.loadAfter.toFixed(2)} after; ${run.totals}`;
}

/**
 * `all` with the default jobs against the 60 s goal: `ratio` = goal/wall, met at 1 and above.
 * A smoke run (a part of the checks) is aimed at nothing: the goal is for the whole run.
 */
export function allGoalRow(run: AllRun, label: string, smoke = false): BenchRow {
  return {
    name: `wirecheck all${label}, ${run.jobs} ${run.jobs === 1 ? 'job' : 'jobs'}: wall time vs ${ALL_GOAL_MS / 1000} s`,
    value: Math.round(run.wallMs),
    unit: 'ms',
    baseline: ALL_GOAL_MS,
    ratio: Number((ALL_GOAL_MS / run.wallMs).toPrecision(4)),
    goal: smoke ? 0 : 1,
    note: loadNote(run),
  };
}

/** A context row: the default jobs against --jobs 1 (the suites one after another). */
export function allJobsRow(many: AllRun, one: AllRun, label: string): BenchRow {
  return {
    name: `wirecheck all${label}: wall time with ${many.jobs} jobs vs --jobs 1`,
    value: Math.round(many.wallMs),
    unit: 'ms',
    baseline: Math.round(one.wallMs),
    ratio: Number((one.wallMs / many.wallMs).toPrecision(4)),
    goal: 0,
    note: `--jobs 1: ${loadNote(one)}`,
  };
}

/**
 * `wirecheck all` as a whole: its wall time with the default jobs against the 60 s goal, then,
 * outside --quick, with --jobs 1 right after. --quick runs a smoke version (2 property runs,
 * a sixth of each suite's checks) that proves the piece works and measures nothing worth keeping.
 */
export async function runAllBench(options: {
  readonly quick: boolean;
  readonly log?: ((line: string) => void) | undefined;
}): Promise<BenchRow[]> {
  const { log = () => {} } = options;
  const extra = options.quick ? ['--runs', '2', '--shard', '1/6'] : [];
  const label = options.quick
    ? ' (smoke: --runs 2 --shard 1/6)'
    : ', every suite against its reference, quick tier';
  const run = async (jobs: number) => {
    const result = await timeAll(jobs, extra);
    log(
      `wirecheck all with ${jobs} ${jobs === 1 ? 'job' : 'jobs'}: ${(result.wallMs / 1000).toFixed(1)} s, exit ${result.code}, ${result.totals}, load average ${result.loadBefore.toFixed(2)} before`,
    );
    if (result.code !== 0)
      throw new Error(`wirecheck all exited ${result.code} against the references: ${result.totals}`);
    return result;
  };
  const many = await run(defaultJobs());
  const rows = [allGoalRow(many, label, options.quick)];
  if (!options.quick && many.jobs > 1) rows.push(allJobsRow(many, await run(1), label));
  return rows;
}
