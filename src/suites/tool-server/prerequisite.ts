import { type Check, CheckFailure, NotExercised, TargetGone } from '../../harness/check.js';

/**
 * A failure of something many checks need first (the tool list): each must check that needs
 * it fails with it under one shared cause, so reports print it once; a should check has
 * nothing to judge and is not exercised.
 */
export class PrerequisiteFailed extends CheckFailure {
  override readonly name = 'PrerequisiteFailed';
  /** What failed, in a few words ("tools/list"). */
  what = '';
}

/** Run `make`; a CheckFailure it throws becomes a PrerequisiteFailed whose shared cause is `what` failed. */
export async function prerequisite<T>(what: string, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (e) {
    if (e instanceof TargetGone || !(e instanceof CheckFailure) || e instanceof PrerequisiteFailed) throw e;
    const failed = new PrerequisiteFailed(e.message, e.expected, e.actual, e.evidence, {
      sharedCause: e.sharedCause ?? `${what}: ${e.message}`,
    });
    failed.what = what;
    throw failed;
  }
}

/** The check, with a should check not exercised (rather than warning) when a prerequisite failed. */
export function skipShouldOnPrerequisite<Ctx>(check: Check<Ctx>): Check<Ctx> {
  if (check.level !== 'should') return check;
  return {
    ...check,
    run: async (ctx, env) => {
      try {
        await check.run(ctx, env);
      } catch (e) {
        // The cause itself is printed once, with the must checks it fails.
        if (e instanceof PrerequisiteFailed)
          throw new NotExercised(
            `nothing to judge: ${e.what} failed; the cause is reported once, with the checks it fails`,
          );
        throw e;
      }
    },
  };
}
