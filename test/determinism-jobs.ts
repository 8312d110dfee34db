import { defaultJobs } from '../src/harness/run-suite.js';

/**
 * `jobs` of the i-th of a determinism test's runs with one seed: one check at a time, then
 * the default (the machine's parallelism, at least 2 so that checks really overlap), in
 * turn. Every run must give the same verdicts, so `--jobs` changes none.
 */
export function determinismJobs(i: number): number {
  return i % 2 === 0 ? 1 : Math.max(2, defaultJobs());
}
