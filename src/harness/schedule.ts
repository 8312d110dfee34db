import type { CheckSchedule } from './check.js';
import { createSlots, type Slots } from './slots.js';

/** What the scheduler needs of a check. */
export interface Schedulable {
  readonly schedule?: CheckSchedule;
}

/** The start rank of a schedule: waits first, then ordinary, alone, and last at the very end. */
function rankOf(schedule: CheckSchedule | undefined): number {
  if (schedule === 'waits') return 0;
  if (schedule === 'alone') return 2;
  if (schedule === 'last') return 3;
  return 1;
}

/**
 * The order the checks of a concurrent run start in (indexes into `checks`): the ones that
 * wait on time first, so their waits overlap everything else, then the ordinary ones in
 * catalogue order, then those that must run alone, once the others are done, then those that
 * run last, once every other check of the suite has ended. Output keeps catalogue order
 * whatever this order is.
 */
export function startOrder(checks: readonly Schedulable[]): number[] {
  const indexes = checks.map((_, i) => i);
  // Array.prototype.sort is stable: catalogue order within a rank.
  return indexes.sort(
    (a, b) => rankOf((checks[a] as Schedulable).schedule) - rankOf((checks[b] as Schedulable).schedule),
  );
}

export interface DispatchOptions {
  /** Job slots: ordinary checks hold one each, a check that runs alone holds them all. */
  readonly jobs: number;
  /** Waiting checks at once (Suite.waitsAtOnce); absent: `jobs`. */
  readonly waitsAtOnce?: number;
  /**
   * The job slots to take from, shared with other suites of the run (`wirecheck all`); absent:
   * `jobs` slots of this suite's own. A check that runs alone takes every one of them.
   */
  readonly slots?: Slots;
  /**
   * Start check `index`; `slots` is the pool an ordinary check may borrow free slots from
   * (for its property cases). Must not reject.
   */
  start(index: number, slots: Slots | undefined): Promise<void>;
  /** Asked before each start: true stops starting checks (the ones running still finish). */
  stopped(): boolean;
  /**
   * Called once every ordinary and waiting check has started (a check that runs alone has
   * asked for its slots, one that runs last is about to wait for the others), or the run
   * stopped starting checks: the next suite of a shared run may open now.
   */
  onDispatched?(): void;
}

/**
 * Run `checks` with at most `jobs` ordinary ones at a time, in `startOrder`. Checks that wait
 * on time hold a slot of their own pool (at most `waitsAtOnce` of them at once), so they never keep
 * an ordinary check from starting. A check that runs last starts once every check started
 * before it has ended, waiting ones included, and holds one slot. Returns the indexes
 * started, once every started check has finished.
 */
export async function dispatch(
  checks: readonly Schedulable[],
  options: DispatchOptions,
): Promise<Set<number>> {
  const slots = options.slots ?? createSlots(options.jobs);
  const waitSlots = createSlots(options.waitsAtOnce ?? options.jobs);
  const running = new Set<Promise<void>>();
  const started = new Set<number>();
  let dispatched = false;
  const markDispatched = () => {
    if (dispatched) return;
    dispatched = true;
    options.onDispatched?.();
  };
  const waitTurns: Promise<void>[] = [];
  try {
    for (const index of startOrder(checks)) {
      const kind = checks[index]?.schedule;
      if (options.stopped()) break;
      if (kind === 'waits') {
        // Its wait slot is waited for off the loop: a waiting check queued behind others never
        // holds back the ordinary checks after it.
        const turn = waitSlots.acquire(1);
        waitTurns.push(turn);
        const run: Promise<void> = turn
          .then(async () => {
            if (options.stopped()) return;
            started.add(index);
            await options.start(index, undefined);
          })
          .finally(() => {
            waitSlots.release(1);
            running.delete(run);
          });
        running.add(run);
        continue;
      }
      const count = kind === 'alone' ? slots.size : 1;
      if (kind === 'last') {
        markDispatched();
        // Whatever a check started before this one does (a process it starts late) is over.
        while (running.size > 0) await Promise.all(running);
        if (options.stopped()) break;
      }
      // A check that runs alone may judge what every other check started: each waiting check
      // has started before it does.
      if (kind === 'alone') await Promise.all(waitTurns);
      const acquired = slots.acquire(count);
      // Asked for first, so no check of a suite opened after it takes its turn.
      if (kind === 'alone') markDispatched();
      await acquired;
      if (options.stopped()) {
        slots.release(count);
        break;
      }
      started.add(index);
      const run: Promise<void> = options.start(index, kind === undefined ? slots : undefined).finally(() => {
        slots.release(count);
        running.delete(run);
      });
      running.add(run);
    }
  } finally {
    markDispatched();
  }
  await Promise.all(running);
  return started;
}
