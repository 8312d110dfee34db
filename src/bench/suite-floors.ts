import type { Check } from '../harness/check.js';
import type { SuiteResult } from '../harness/results.js';
import { prescribedWaitMs, startsAtOnce } from '../harness/target-starts.js';
import { clip } from '../protocol/clip.js';
import type { BenchRow } from './rows.js';

/** Wall time may be at most this many times the floor (issue 14). */
export const FLOOR_RATIO_GOAL = 1.5;

/** The prescribed waits a suite run cannot go below (Check.prescribedWaitMs), and whose they are. */
export interface PrescribedWait {
  readonly ms: number;
  readonly what: string;
}

/**
 * The longest wait the suite's checks prescribe: time that passes whatever the machine does,
 * so it belongs to the floor. The waiting checks run side by side (schedule `waits`), so the
 * longest counts, not their sum.
 */
export function longestPrescribedWait(
  checks: readonly Pick<Check<never>, 'id' | 'prescribedWaitMs'>[],
): PrescribedWait | undefined {
  const ms = prescribedWaitMs(checks);
  const check = checks.find((c) => ms > 0 && c.prescribedWaitMs === ms);
  return check === undefined ? undefined : { ms, what: `the longest wait a check prescribes: ${check.id}` };
}

/**
 * The waits of a suite whose checks run one at a time: each is waited out in turn, so they add
 * up, over the checks that ran (a check skipped on this transport waited nothing).
 */
export function serialPrescribedWaits(
  checks: readonly Pick<Check<never>, 'id' | 'prescribedWaitMs'>[],
  ran: readonly { readonly id: string; readonly status: string }[],
): PrescribedWait | undefined {
  const judged = new Set(ran.filter((r) => r.status !== 'skip').map((r) => r.id));
  const waiting = checks.filter((c) => judged.has(c.id) && (c.prescribedWaitMs ?? 0) > 0);
  if (waiting.length === 0) return undefined;
  return {
    ms: waiting.reduce((sum, c) => sum + (c.prescribedWaitMs ?? 0), 0),
    what: `the waits its checks prescribe, one check at a time: ${waiting.map((c) => c.id).join(', ')}`,
  };
}

/**
 * The wait in a suite run's floor: the longest one, where the checks run side by side; their
 * sum over the checks that ran, where they run one at a time.
 */
export function prescribedWaitOf(
  suite: {
    readonly concurrent?: boolean;
    readonly checks: readonly Pick<Check<never>, 'id' | 'prescribedWaitMs'>[];
  },
  ran: readonly { readonly id: string; readonly status: string }[],
): PrescribedWait | undefined {
  return suite.concurrent === true
    ? longestPrescribedWait(suite.checks)
    : serialPrescribedWaits(suite.checks, ran);
}

/** What a suite run's floor is made of. */
export interface SuiteFloor {
  readonly starts: number;
  readonly what: string;
  readonly bareStartMs: number;
  readonly jobs: number;
  readonly waitMs: number;
  readonly waitWhat: string | undefined;
  /** starts x bare start / jobs + the prescribed wait. */
  readonly floorMs: number;
}

/**
 * The floor of a suite run, when the run started target processes and timed a bare start. The
 * starts are divided by what ran at once: the jobs, or for a suite that starts processes
 * ahead of one-at-a-time checks, the starts it let overlap (`atOnce`). A stopped run has none:
 * its wall time is part of a run.
 */
export function floorOf(
  result: Pick<SuiteResult, 'suite' | 'targetStarts' | 'jobs' | 'stopped'>,
  wait: PrescribedWait | undefined,
): SuiteFloor | undefined {
  if (result.stopped !== undefined) return undefined;
  const starts = result.targetStarts;
  if (starts === undefined || starts.count === 0 || starts.bareStartMs === undefined) return undefined;
  const jobs = startsAtOnce(result);
  const waitMs = wait?.ms ?? 0;
  return {
    starts: starts.count,
    what: starts.what,
    bareStartMs: starts.bareStartMs,
    jobs,
    waitMs,
    waitWhat: wait?.what,
    floorMs: (starts.count * starts.bareStartMs) / jobs + waitMs,
  };
}

/** How the floor was made, for the row's note. */
export function describeFloor(floor: SuiteFloor): string {
  const wait = floor.waitWhat === undefined ? '' : ` + ${floor.waitMs / 1000} s (${floor.waitWhat})`;
  return `${floor.starts} ${floor.what} starts x ${floor.bareStartMs} ms / ${floor.jobs} ${floor.jobs === 1 ? 'job' : 'jobs'}${wait}`;
}

function tidy(x: number): number {
  return Math.abs(x) >= 1000 ? Math.round(x) : Number(x.toPrecision(4));
}

/**
 * The row of one suite: its wall time (lower is better) against its floor; `ratio` is
 * floor/wall as for every lower-is-better row, so the goal wall <= 1.5 x floor reads
 * ratio >= 1/1.5.
 */
export function floorRow(
  result: SuiteResult,
  floor: SuiteFloor,
  note: string | undefined,
  /** Which of the suite's references, e.g. ` (stdio)`; '' for its only or first one. */
  label = '',
): BenchRow {
  const wall = result.durationMs;
  return {
    name: floorRowName(result.suite, label),
    value: tidy(wall),
    unit: 'ms',
    baseline: tidy(floor.floorMs),
    ratio: tidy(floor.floorMs / wall),
    goal: tidy(1 / FLOOR_RATIO_GOAL),
    note: [`floor = ${describeFloor(floor)}; wall/floor ${(wall / floor.floorMs).toFixed(2)}`, note]
      .filter((n) => n !== undefined)
      .join('; '),
  };
}

function floorRowName(suite: string, label: string): string {
  return `suite ${suite} against its reference${label}, quick tier: wall time vs floor`;
}

/** The stop's own sentence may quote what the target said: the error keeps a line's worth. */
const STOP_MESSAGE_MAX = 300;

/** A suite run against its reference that is no measurement: a bench part stops on it. */
export class UnmeasuredRunError extends Error {
  override name = 'UnmeasuredRunError';
}

/**
 * Why a run against the reference measures nothing, or undefined when it measures something.
 * A failed check proves the reference wrong, and a fast wrong run proves nothing. A stopped
 * run (the target gone, an interrupt, the budget, a harness error) marked the checks after
 * the stop not run and timed no bare start: its wall time is part of a run.
 */
export function whyNotMeasured(
  result: Pick<SuiteResult, 'suite' | 'summary' | 'stopped'>,
  label = '',
): string | undefined {
  const { failed } = result.summary;
  const which = `suite ${result.suite} against its reference${label}`;
  if (failed > 0) return `${which}: expected no failed check, got ${failed} failed`;
  const { stopped } = result;
  if (stopped !== undefined)
    return `${which}: expected a run to its last check, got one stopped (${stopped.kind}): ${clip(stopped.message, STOP_MESSAGE_MAX)}`;
  return undefined;
}

/**
 * The row of a run of a suite that starts a process per case but has no floor: the floor
 * row's name and goal, missed, and a note saying why. A context row would say the suite
 * starts no process per case, which is false, and leave the summary at "all goals met".
 */
export function missedFloorRow(
  result: Pick<SuiteResult, 'suite' | 'durationMs' | 'targetStarts' | 'stopped'>,
  label: string,
  note: string | undefined,
): BenchRow {
  const starts = result.targetStarts;
  const why =
    result.stopped !== undefined
      ? `the run stopped before its last check (${result.stopped.kind}), so it timed no bare start`
      : starts === undefined || starts.count === 0
        ? 'the run counted no target start'
        : `the bare ${starts.what} start could not be timed (it did not start, or did not exit in time)`;
  return {
    name: floorRowName(result.suite, label),
    value: tidy(result.durationMs),
    unit: 'ms',
    baseline: 0,
    ratio: 0,
    goal: tidy(1 / FLOOR_RATIO_GOAL),
    note: [`no floor measured: ${why}`, note].filter((n) => n !== undefined).join('; '),
  };
}

/** A context row: the suite's wall time with --jobs 1 against the default (the speed-up). */
export function jobsRow(one: SuiteResult, many: SuiteResult, note: string | undefined, label = ''): BenchRow {
  return {
    name: `suite ${many.suite} against its reference${label}, quick tier: wall time with ${startsAtOnce(many)} jobs vs --jobs 1`,
    value: tidy(many.durationMs),
    unit: 'ms',
    baseline: tidy(one.durationMs),
    ratio: tidy(one.durationMs / many.durationMs),
    goal: 0,
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * Why a suite has no floor: it starts no target process per case, so the floor
 * (starts x a bare start / jobs + prescribed waits) is its prescribed waits alone, and it
 * prescribes none that its run waits out against the reference.
 */
export const NO_FLOOR: Readonly<Record<string, string>> = {
  'messages-service':
    'no floor: the suite starts no process (every case is a request to one service) and prescribes no wait',
  'tool-server':
    'no floor: no process per case over SSE and Streamable HTTP (sessions of one server; over stdio, where each session is a process, the floor applies); the keep-alive watch ends at the second keep-alive within the limit',
};

/**
 * A context row for a suite without a floor: its wall time against its checks' own time
 * added up, over the jobs it ran (the time its checks would take if nothing else cost
 * anything and every job slot stayed busy). Not a goal: the checks' own time is ours too.
 * A run that starts processes per case (it counted starts, or the caller knows its suite
 * has a bare start for the target) gets the missed floor row instead.
 */
export function workRow(
  result: SuiteResult,
  label: string,
  note: string | undefined,
  startsProcesses = result.targetStarts !== undefined,
): BenchRow {
  if (startsProcesses) return missedFloorRow(result, label, note);
  const jobs = result.jobs ?? 1;
  const workMs = result.checks.reduce((sum, c) => sum + c.durationMs, 0);
  const perJob = workMs / jobs;
  return {
    name: `suite ${result.suite} against its reference${label}, quick tier: wall time vs its checks' own time / ${jobs} ${jobs === 1 ? 'job' : 'jobs'}`,
    value: tidy(result.durationMs),
    unit: 'ms',
    baseline: tidy(perJob),
    ratio: tidy(perJob / Math.max(1, result.durationMs)),
    goal: 0,
    note: [NO_FLOOR[result.suite] ?? 'no floor: the suite starts no target process per case', note]
      .filter((n) => n !== undefined)
      .join('; '),
  };
}

/** What the target processes of a suite run cost in CPU, the run's bare starts taken out. */
export interface TargetCpu {
  /** CPU of the processes the run started and waited for, less its bare starts. */
  readonly cpuMs: number;
  /** Bare starts the run timed, and the CPU of one (a median). */
  readonly bareStarts: number;
  readonly bareCpuMs: number;
  /** Cores of the machine: the target's CPU over them is the least wall time it can take. */
  readonly cores: number;
}

/**
 * A context row: the suite's wall time against the CPU its target processes used, over the
 * machine's cores. Where this is near 1 the run waits on the target's own work (its turns,
 * the commands it runs), which no scheduling of the harness shortens; the floor counts only
 * its starts. The CPU is a lower bound: a process killed together with its parent (a
 * session's process group ended at once) is reaped by init, not by the harness.
 */
export function targetCpuRow(
  result: SuiteResult,
  cpu: TargetCpu,
  note: string | undefined,
  label = '',
): BenchRow {
  const wall = result.durationMs;
  const least = cpu.cpuMs / cpu.cores;
  const starts = result.targetStarts;
  const made = `${starts?.count ?? 0} ${starts?.what ?? 'target'} runs and the processes they waited for, less ${cpu.bareStarts} bare starts x ${tidy(cpu.bareCpuMs)} ms`;
  return {
    name: `suite ${result.suite} against its reference${label}, quick tier: wall time vs its target processes' CPU / ${cpu.cores} cores`,
    value: tidy(wall),
    unit: 'ms',
    baseline: tidy(least),
    ratio: tidy(least / Math.max(1, wall)),
    goal: 0,
    note: [
      `target CPU ${tidy(cpu.cpuMs)} ms or more (${made}; a process killed with its parent is not in it); wall/(CPU/cores) at most ${(wall / Math.max(1, least)).toFixed(2)}`,
      note,
    ]
      .filter((n) => n !== undefined)
      .join('; '),
  };
}
