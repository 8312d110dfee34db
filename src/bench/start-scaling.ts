import { type BareStart, timeBareStart } from '../harness/bare-start.js';
import { type BenchRow, tidy } from './rows.js';

/**
 * The same bare starts timed one after another and `jobs` at a time. The floor of a suite
 * divides its starts by the jobs, as if each start had a core to itself; this shows how far
 * starts at once really share the machine (on the 2-core VM of docs/performance.md, two Node
 * starts at once ran 1.34-1.46x as fast as one after another, where a loop that only counts
 * ran 2x).
 */
export interface StartScaling {
  readonly jobs: number;
  /** Starts timed each way. */
  readonly starts: number;
  /** Wall time of the starts one after another (ms). */
  readonly oneAtATimeMs: number;
  /** Wall time of the same number of starts, `jobs` at a time (ms). */
  readonly atOnceMs: number;
}

/** Times one bare start (ms); undefined when it could not start. */
export type TimeStart = (start: BareStart) => Promise<number | undefined>;

/**
 * Time `rounds` x `perRound` bare starts one after another and as many `jobs` at a time, the
 * two ways alternating round by round so that a drift of the machine's load falls on both.
 * Each lane of starts has a bare start of its own (`makeStart`: its own work directory, say),
 * ended with its `done`. undefined when there is no bare start or one failed: its time would
 * not be a start's.
 */
export async function measureStartScaling(
  makeStart: () => BareStart | undefined,
  jobs: number,
  perRound: number,
  rounds: number,
  time: TimeStart = (s) => timeBareStart(s),
): Promise<StartScaling | undefined> {
  const made = Array.from({ length: Math.max(1, Math.min(jobs, perRound)) }, makeStart);
  const lanes = made.filter((lane) => lane !== undefined);
  try {
    if (lanes.length < made.length) return undefined;
    let oneAtATimeMs = 0;
    let atOnceMs = 0;
    for (let round = 0; round < rounds; round++) {
      const serial = await timed(() => startsOf(lanes.slice(0, 1), perRound, time));
      const parallel = await timed(() => startsOf(lanes, perRound, time));
      if (!serial.ok || !parallel.ok) return undefined;
      oneAtATimeMs += serial.ms;
      atOnceMs += parallel.ms;
    }
    return { jobs, starts: rounds * perRound, oneAtATimeMs, atOnceMs };
  } finally {
    for (const lane of lanes) lane.done?.();
  }
}

/** `count` starts shared out over the lanes, which run at once; false when one failed. */
async function startsOf(lanes: readonly BareStart[], count: number, time: TimeStart): Promise<boolean> {
  let next = 0;
  const ok = await Promise.all(
    lanes.map(async (start) => {
      while (next < count) {
        next++;
        if ((await time(start)) === undefined) return false;
      }
      return true;
    }),
  );
  return ok.every(Boolean);
}

async function timed(work: () => Promise<boolean>): Promise<{ ok: boolean; ms: number }> {
  const t0 = performance.now();
  const ok = await work();
  return { ok, ms: performance.now() - t0 };
}

/**
 * A context row: the starts `jobs` at a time against one after another (lower is better, so
 * `ratio` is the speed-up). The floor counts on a speed-up of `jobs`; with the one measured, a
 * run made only of starts reads wall/floor jobs/speed-up, before any work of its cases or of
 * the harness.
 */
export function startScalingRow(
  suite: string,
  label: string,
  what: string,
  scaling: StartScaling,
  note: string | undefined,
): BenchRow {
  const speedUp = scaling.oneAtATimeMs / Math.max(1, scaling.atOnceMs);
  const { jobs, starts } = scaling;
  return {
    name: `suite ${suite} against its reference${label}: bare ${what} starts ${jobs} at a time vs one after another`,
    value: tidy(scaling.atOnceMs),
    unit: 'ms',
    baseline: tidy(scaling.oneAtATimeMs),
    ratio: tidy(speedUp),
    goal: 0,
    note: [
      `${starts} starts each way; ${jobs} at a time ran ${speedUp.toFixed(2)}x as fast as one after another, where the floor counts on ${jobs}x, so a run made of these starts alone reads wall/floor ${(jobs / speedUp).toFixed(2)}`,
      note,
    ]
      .filter((n) => n !== undefined)
      .join('; '),
  };
}
