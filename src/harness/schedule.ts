import type { CheckSchedule } from './check.js';
import { createSlots, type Slots } from './slots.js';

/** What the scheduler needs of a check. */
export interface Schedulable {
  readonly schedule?: CheckSchedule;
}

/**
 * The order the checks of a concurrent run start in (indexes into `checks`): the ones that
 * wait on time first, so their waits overlap everything else, then the ordinary ones in
 * catalogue order, then those that must run alone, once the others are done. Output keeps
 * catalogue order whatever this order is.
 */
export function startOrder(checks: readonly Schedulable[]): number[] {
  const indexes = checks.map((_, i) => i);
  const rank = (c: Schedulable) => (c.schedule === 'waits' ? 0 : c.schedule === 'alone' ? 2 : 1);
  // Array.prototype.sort is stable: catalogue order within a rank.
  return indexes.sort((a, b) => rank(checks[a] as Schedulable) - rank(checks[b] as Schedulable));
}

export interface DispatchOptions {
  /** Job slots: ordinary checks hold one each, a check that runs alone holds them all. */
  readonly jobs: number;
  /**
   * Start check `index`; `slots` is the pool an ordinary check may borrow free slots from
   * (for its property cases). Must not reject.
   */
  start(index: number, slots: Slots | undefined): Promise<void>;
  /** Asked before each start: true stops starting checks (the ones running still finish). */
  stopped(): boolean;
}

/**
 * Run `checks` with at most `jobs` ordinary ones at a time, in `startOrder`. Checks that wait
 * on time hold a slot of their own pool (at most `jobs` of them at once), so they never keep
 * an ordinary check from starting. Returns the indexes started, once every started check has
 * finished.
 */
export async function dispatch(
  checks: readonly Schedulable[],
  options: DispatchOptions,
): Promise<Set<number>> {
  const { jobs } = options;
  const slots = createSlots(jobs);
  const waitSlots = createSlots(jobs);
  const running = new Set<Promise<void>>();
  const started = new Set<number>();
  const waitTurns: Promise<void>[] = [];
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
    // A check that runs alone may judge what every other check started (the processes left
    // running): each waiting check has started before it does.
    if (kind === 'alone') await Promise.all(waitTurns);
    const count = kind === 'alone' ? jobs : 1;
    await slots.acquire(count);
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
  await Promise.all(running);
  return started;
}
