import type { Suite } from './check.js';

// How reports show a target: through the suite's scrubber, as every check result is. A secret
// may be in the target's own description too (a `--start` command that carries the token the
// server requires), and the reproduce line and a counterexample file repeat it.

/** The target's description, as reports show it. */
export function shownTarget<T, C>(suite: Suite<T, C>, target: T): string {
  const scrub = suite.scrubber?.(target);
  const text = suite.describeTarget(target);
  return scrub === undefined ? text : scrub(text);
}

/** The target's arguments of a reproduce line, as reports show them. */
export function shownTargetArgs<T, C>(suite: Suite<T, C>, target: T): string[] {
  const scrub = suite.scrubber?.(target);
  const args = suite.targetArgs(target);
  return scrub === undefined ? args : args.map(scrub);
}
