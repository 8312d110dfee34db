import { loadavg } from 'node:os';
import { endBareStart, measureBareStart, BARE_STARTS as RUN_BARE_STARTS } from '../harness/bare-start.js';
import type { Suite } from '../harness/check.js';
import type { SuiteResult } from '../harness/results.js';
import { defaultJobs, runSuite } from '../harness/run-suite.js';
import { startsAtOnce } from '../harness/target-starts.js';
import { findPerl } from '../mocks/tools/stdio-relay.js';
import { SUITES } from '../suites/registry.js';
import { waitedChildrenCpuMs } from './children-cpu.js';
import type { BenchRow } from './rows.js';
import { measureStartScaling, startScalingRow } from './start-scaling.js';
import { median } from './stats.js';
import {
  describeFloor,
  floorOf,
  floorRow,
  jobsRow,
  prescribedWaitOf,
  targetCpuRow,
  UnmeasuredRunError,
  whyNotMeasured,
  workRow,
} from './suite-floors.js';
import {
  NOT_KEPT_WARM,
  startWarmReference,
  verdictDifferences,
  WARM_LABEL,
  warmRow,
  whyNotWarm,
} from './warm-bench.js';

export interface SuiteBenchOptions {
  /** Smoke run: 2 property runs per check, no --jobs 1 runs. */
  readonly quick: boolean;
  readonly log?: ((line: string) => void) | undefined;
  /** Only these suites (default: every suite with a reference). */
  readonly suites?: readonly string[];
}

/** The seed of every suite run of the bench, so two benches run the same cases. */
const SEED = 14;

/**
 * Every suite against its reference, quick tier: its wall time against its floor (the target
 * processes it started x one bare start of the command, over the jobs, plus the longest wait
 * its checks prescribe), and, outside --quick, its wall time with --jobs 1 right after, on the
 * same reference, for the speed-up.
 */
export async function runSuiteBench(options: SuiteBenchOptions): Promise<BenchRow[]> {
  const { log = () => {} } = options;
  const rows: BenchRow[] = [];
  const targets = SUITES.flatMap((entry) => {
    if (entry.reference === undefined) return [];
    if (options.suites !== undefined && !options.suites.includes(entry.suite.name)) return [];
    const first = { entry, label: '', start: entry.reference.bind(entry) };
    // A suite is measured against every reference it has (the tool server over each transport).
    const others = (entry.otherReferences ?? []).map((o) => ({
      entry,
      label: ` (${o.label})`,
      start: () => o.start(),
    }));
    return [first, ...others];
  });
  for (const { entry, label, start } of targets) {
    const reference = await start();
    try {
      // The result, and the CPU of the processes the run started and waited for.
      const run = async (
        jobs: number,
        target: unknown = reference.target,
        runLabel = label,
      ): Promise<{ result: SuiteResult; childrenCpuMs: number | undefined }> => {
        const load = loadavg()[0] ?? 0;
        const cpuBefore = waitedChildrenCpuMs();
        const result = await runSuite(entry.suite, target, {
          seed: SEED,
          jobs,
          ...(options.quick ? { runs: 2 } : {}),
        });
        const cpuAfter = waitedChildrenCpuMs();
        const { failed } = result.summary;
        const n = startsAtOnce(result);
        log(
          `suite ${result.suite}${runLabel}: ${(result.durationMs / 1000).toFixed(1)} s with ${n} ${n === 1 ? 'job' : 'jobs'}, ${failed} failed, load average ${load.toFixed(2)} at the start`,
        );
        const why = whyNotMeasured(result, runLabel);
        if (why !== undefined) throw new UnmeasuredRunError(why);
        const childrenCpuMs =
          cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
        return { result, childrenCpuMs };
      };
      const measured = await run(defaultJobs());
      const { result: many, bareCpuMs } = await steadyStarts(measured.result, entry.suite, reference.target);
      const note = `load average ${loadavg()[0]?.toFixed(2)} after the run`;
      const floor = floorOf(many, prescribedWaitOf(entry.suite, many.checks));
      if (floor !== undefined) {
        log(`  floor ${(floor.floorMs / 1000).toFixed(1)} s = ${describeFloor(floor)}`);
        rows.push(floorRow(many, floor, note, label));
        if (measured.childrenCpuMs !== undefined && bareCpuMs !== undefined) {
          const cpuMs = Math.max(0, measured.childrenCpuMs - RUN_BARE_STARTS * bareCpuMs);
          const cpu = { cpuMs, bareStarts: RUN_BARE_STARTS, bareCpuMs, cores: defaultJobs() };
          log(`  target CPU ${(cpuMs / 1000).toFixed(2)} s over ${cpu.cores} cores`);
          rows.push(targetCpuRow(many, cpu, note, label));
        }
        if (!options.quick && floor.jobs > 1) {
          const scaling = await startScaling(entry.suite, reference.target, floor.jobs);
          if (scaling !== undefined) {
            const speedUp = scaling.oneAtATimeMs / scaling.atOnceMs;
            log(
              `  ${floor.jobs} bare starts at a time ran ${speedUp.toFixed(2)}x as fast as one after another`,
            );
            rows.push(startScalingRow(many.suite, label, floor.what, scaling, note));
          }
        }
      } else {
        const row = workRow(many, label, note, startsProcesses(entry.suite, reference.target));
        log(`  ${row.note}`);
        rows.push(row);
      }
      if (label === '') rows.push(...(await warmRows(entry.suite, reference.target, many, run, log)));
      if (!options.quick && startsAtOnce(many) > 1)
        rows.push(jobsRow((await run(1)).result, many, note, label));
    } finally {
      await reference.close();
    }
  }
  return rows;
}

/**
 * For a suite whose reference `serve warm` keeps loaded: the same suite, seed and jobs again
 * through the warm relay, right after the cold run. Its floor counts the relay's starts, so it
 * shows what the harness itself costs once a target starts in milliseconds; the cold/warm row
 * shows what the kit gains. A verdict that differs from the cold run's fails the bench.
 */
async function warmRows(
  suite: Suite<unknown, unknown>,
  coldTarget: unknown,
  cold: SuiteResult,
  run: (jobs: number, target: unknown, label: string) => Promise<{ result: SuiteResult }>,
  log: (line: string) => void,
): Promise<BenchRow[]> {
  const why = whyNotWarm(suite.name, findPerl());
  if (why !== undefined) {
    if (why !== NOT_KEPT_WARM) log(`  no run kept warm: ${why}`);
    return [];
  }
  const warm = await startWarmReference(suite.name, coldTarget);
  try {
    const measured = (await run(cold.jobs ?? defaultJobs(), warm.target, WARM_LABEL)).result;
    const differences = verdictDifferences(cold, measured);
    if (differences.length > 0)
      throw new Error(`suite ${suite.name} kept warm changed verdicts: ${differences.join('; ')}`);
    const { result } = await steadyStarts(measured, suite, warm.target);
    const note = `load average ${loadavg()[0]?.toFixed(2)} after the run`;
    const rows = [warmRow(cold, result, note)];
    log(
      `  kept warm: ${(cold.durationMs / result.durationMs).toFixed(2)}x as fast as cold, the same verdicts`,
    );
    const floor = floorOf(result, prescribedWaitOf(suite, result.checks));
    if (floor !== undefined) {
      log(`  floor kept warm ${(floor.floorMs / 1000).toFixed(1)} s = ${describeFloor(floor)}`);
      rows.push(floorRow(result, floor, note, WARM_LABEL));
    }
    return rows;
  } finally {
    await warm.close();
  }
}

/** Whether the suite starts a process per case for this target: it has a bare start for it. */
function startsProcesses<T>(suite: Suite<T, unknown>, target: T): boolean {
  const bare = suite.bareStart?.(target);
  if (bare === undefined) return false;
  endBareStart(bare);
  return true;
}

/** Starts per job in a round, and rounds, of the start-scaling row: 2 x 4 x jobs starts each way. */
const SCALING_STARTS_PER_JOB = 4;
const SCALING_ROUNDS = 2;

/** The suite's bare start timed one after another and `jobs` at a time (start-scaling.ts). */
async function startScaling<T>(suite: Suite<T, unknown>, target: T, jobs: number) {
  const { bareStart } = suite;
  if (bareStart === undefined) return undefined;
  return measureStartScaling(() => bareStart(target), jobs, SCALING_STARTS_PER_JOB * jobs, SCALING_ROUNDS);
}

/** Bare starts timed in all, the run's own included: their median goes into the floor. */
const BARE_STARTS = 5;

/**
 * The run with its bare start replaced by the median of BARE_STARTS (the run's own and more,
 * right after it): one start timed on a busy machine can be off by a factor of 2. With it, the
 * CPU of one bare start (the median over the ones timed here; each times RUN_BARE_STARTS).
 */
async function steadyStarts<T>(
  result: SuiteResult,
  suite: Suite<T, unknown>,
  target: T,
): Promise<{ result: SuiteResult; bareCpuMs: number | undefined }> {
  const starts = result.targetStarts;
  if (starts?.bareStartMs === undefined) return { result, bareCpuMs: undefined };
  const samples = [starts.bareStartMs];
  const cpuSamples: number[] = [];
  for (let i = 1; i < BARE_STARTS; i++) {
    const bare = suite.bareStart?.(target);
    const cpuBefore = waitedChildrenCpuMs();
    const ms = bare === undefined ? undefined : await measureBareStart(bare);
    const cpuAfter = waitedChildrenCpuMs();
    if (ms !== undefined) samples.push(ms);
    if (ms !== undefined && cpuBefore !== undefined && cpuAfter !== undefined)
      cpuSamples.push((cpuAfter - cpuBefore) / RUN_BARE_STARTS);
  }
  return {
    result: { ...result, targetStarts: { ...starts, bareStartMs: Math.round(median(samples)) } },
    bareCpuMs: cpuSamples.length === 0 ? undefined : median(cpuSamples),
  };
}
