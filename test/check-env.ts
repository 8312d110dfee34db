import type { CheckEnv } from '../src/harness/check.js';

/** The env of a check or property called directly: seed 1, one run, nothing aborted, no job slot to lend. */
export function checkEnv(overrides: Partial<CheckEnv> = {}): CheckEnv {
  return {
    seed: 1,
    runs: 1,
    full: false,
    signal: new AbortController().signal,
    idle: (work) => work,
    ...overrides,
  };
}
