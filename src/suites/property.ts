import fc from 'fast-check';
import { type CheckEnv, CheckFailure } from './check.js';

/**
 * Run an async property with the run's seed and budget. A counterexample becomes a
 * CheckFailure whose message carries fast-check's seed and path, so the reproduce line
 * (same --seed) replays exactly that case.
 */
export async function checkProperty<T>(
  env: CheckEnv,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  options: { runs?: number } = {},
): Promise<void> {
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      if (env.signal.aborted) return;
      await predicate(value);
    }),
    { seed: env.seed, numRuns: options.runs ?? env.runs },
  );
  if (!details.failed) return;
  if (!('errorInstance' in details)) {
    throw new CheckFailure('property could not run: interrupted or too many skipped values');
  }
  const error = details.errorInstance;
  const counterexample = fc.stringify(details.counterexample);
  if (error instanceof CheckFailure) {
    throw new CheckFailure(
      `${error.message} (property failed after ${details.numRuns} runs, shrunk ${details.numShrinks} times; fast-check seed ${details.seed}, path "${details.counterexamplePath}"; counterexample ${abbreviate(counterexample)})`,
      error.expected,
      error.actual,
    );
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  throw new CheckFailure(
    `${message} (property failed after ${details.numRuns} runs; fast-check seed ${details.seed}, path "${details.counterexamplePath}"; counterexample ${abbreviate(counterexample)})`,
  );
}

function abbreviate(s: string): string {
  return s.length > 1500 ? `${s.slice(0, 1500)}... (${s.length} chars)` : s;
}
