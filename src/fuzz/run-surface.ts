import fc from 'fast-check';
import { type FuzzSurface, FuzzViolation } from './surface.js';

export interface FuzzRunOptions {
  seed: number;
  /** Cases to try (fast-check runs). */
  runs: number;
  /** Replay only the counterexample at this fast-check path (printed with a failure). */
  path?: string;
  /** A case slower than this counts as a hang (async cases are also cut off at it). */
  caseTimeoutMs?: number;
  /** Stop trying new cases (or shrinking) after this long; the run then counts as interrupted. */
  timeLimitMs?: number;
}

export type FuzzRunResult =
  | { surface: string; status: 'passed'; cases: number; durationMs: number }
  | { surface: string; status: 'interrupted'; cases: number; durationMs: number }
  | {
      surface: string;
      status: 'failed';
      cases: number;
      durationMs: number;
      seed: number;
      path: string;
      shrinks: number;
      counterexample: string;
      error: string;
    };

const COUNTEREXAMPLE_LIMIT = 4000;

/** Run one surface under fast-check with the given seed and budget; never throws for a failing case. */
export async function runSurface(surface: FuzzSurface, options: FuzzRunOptions): Promise<FuzzRunResult> {
  const started = performance.now();
  const target = await surface.open();
  try {
    const { caseTimeoutMs } = options;
    const property = fc.asyncProperty(target.arbitrary, async (input) => {
      const t0 = performance.now();
      await target.check(input);
      const ms = performance.now() - t0;
      if (caseTimeoutMs !== undefined && ms > caseTimeoutMs) {
        throw new FuzzViolation(
          `one case took ${Math.round(ms)} ms (limit ${caseTimeoutMs} ms): a hang or super-linear work`,
        );
      }
    });
    const details = await fc.check(property, {
      seed: options.seed,
      numRuns: options.runs,
      ...(options.path === undefined ? {} : { path: options.path }),
      ...(caseTimeoutMs === undefined ? {} : { timeout: caseTimeoutMs }),
      ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs }),
    });
    const base = { surface: surface.name, cases: details.numRuns, durationMs: performance.now() - started };
    if (details.failed) {
      const counterexample = fc.stringify(details.counterexample?.[0]);
      return {
        ...base,
        status: 'failed',
        seed: details.seed,
        path: details.counterexamplePath ?? '',
        shrinks: details.numShrinks,
        counterexample:
          counterexample.length > COUNTEREXAMPLE_LIMIT
            ? `${counterexample.slice(0, COUNTEREXAMPLE_LIMIT)}... (${counterexample.length} chars)`
            : counterexample,
        error: describeError(details.errorInstance),
      };
    }
    return { ...base, status: details.interrupted ? 'interrupted' : 'passed' };
  } finally {
    await target.close?.();
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
