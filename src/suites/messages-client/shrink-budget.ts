/**
 * Bound fast-check's shrinking for a property whose every run costs a process start.
 * After the first failure, at most `maxShrinkRuns` more values are really tried; later
 * ones pass at once, so shrinking ends at the smallest failure found by then. That value
 * did fail, so the reported counterexample (and its seed and path) stays a real one.
 */
export function withShrinkBudget<T>(
  predicate: (value: T) => Promise<void>,
  maxShrinkRuns: number,
): (value: T) => Promise<void> {
  let failed = false;
  let shrinkRuns = 0;
  return async (value) => {
    if (failed && shrinkRuns++ >= maxShrinkRuns) return;
    try {
      await predicate(value);
    } catch (e) {
      failed = true;
      throw e;
    }
  };
}
