import { shellQuote } from '../../harness/run-suite.js';
import { WIRECHECK_BIN } from '../../package-root.js';
import type { RunningReference, SuiteEntry } from '../registry.js';
import { type IsolationProbe, referenceIsolation } from './reference-isolation.js';
import { runnerSuite } from './suite.js';
import { RUNNER_TARGET_OPTIONS, type RunnerTarget, runnerTargetFromOptions } from './target.js';

/**
 * The reference runner as a target command: `node bin/wirecheck.js run-bash`.
 */
export function referenceRunnerCommand(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(WIRECHECK_BIN)} run-bash`;
}

/** The suite as the CLI registers it. */
export const runnerSuiteEntry: SuiteEntry = {
  suite: runnerSuite,
  targetOptions: RUNNER_TARGET_OPTIONS,
  targetFromOptions: runnerTargetFromOptions,
  reference: () => startReferenceRunner(),
};

/** The reference runner for `wirecheck all`: `--isolation none`, with a note, where no isolation works here. */
export async function startReferenceRunner(probe?: IsolationProbe): Promise<RunningReference> {
  const isolation = await referenceIsolation(probe);
  const target: RunnerTarget = { runner: [referenceRunnerCommand(), ...isolation.args].join(' ') };
  return { target, close: async () => {}, ...(isolation.note === undefined ? {} : { note: isolation.note }) };
}
