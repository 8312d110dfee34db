import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../harness/run-suite.js';
import type { SuiteEntry } from '../registry.js';
import { runnerSuite } from './suite.js';
import { RUNNER_TARGET_OPTIONS, type RunnerTarget, runnerTargetFromOptions } from './target.js';

/**
 * The reference runner as a target command: `node bin/wirecheck.js run-bash` (this file
 * sits two folders below src/ or dist/, so the bin is three folders up).
 */
export function referenceRunnerCommand(): string {
  const bin = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(bin)} run-bash`;
}

/** The suite as the CLI registers it. */
export const runnerSuiteEntry: SuiteEntry = {
  suite: runnerSuite,
  targetOptions: RUNNER_TARGET_OPTIONS,
  targetFromOptions: runnerTargetFromOptions,
  async reference() {
    const target: RunnerTarget = { runner: referenceRunnerCommand() };
    return { target, close: async () => {} };
  },
};
