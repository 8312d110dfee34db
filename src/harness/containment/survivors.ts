import { CheckFailure } from '../check.js';
import type { Survivor } from './procfs.js';
import { describeSurvivors } from './spawn.js';

/**
 * A target left processes running when its case ended (they escaped its process group:
 * `setsid`, a daemon). wirecheck killed them; this failure reports them as a fault of the
 * target, shared by every check that ran that target (`sharedCause`), for a suite to throw
 * where its level policy allows.
 */
export class TargetLeftProcesses extends CheckFailure {
  override readonly name = 'TargetLeftProcesses';
  constructor(
    /** What was run, e.g. "the client command". */
    readonly what: string,
    readonly survivors: readonly Survivor[],
  ) {
    const count = survivors.length === 1 ? '1 process' : `${survivors.length} processes`;
    super(
      `${what} left ${count} running after it ended (killed by wirecheck): ${describeSurvivors(survivors)}`,
      'no process of the target once its case ends',
      describeSurvivors(survivors),
      undefined,
      { sharedCause: `${what} leaves processes running after it ends (setsid or daemons)` },
    );
  }
}

/** Throws TargetLeftProcesses when `survivors` is not empty. */
export function expectNoSurvivors(what: string, survivors: readonly Survivor[] | undefined): void {
  if (survivors !== undefined && survivors.length > 0) throw new TargetLeftProcesses(what, survivors);
}
