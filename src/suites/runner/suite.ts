import type { Suite } from '../../harness/check.js';
import { environmentChecks, executionChecks } from './checks/execution.js';
import { exitStatusChecks } from './checks/exit-status.js';
import { floodChecks } from './checks/flood.js';
import { inputChecks } from './checks/input.js';
import { leftoverChecks } from './checks/leftovers.js';
import { outputChecks } from './checks/output.js';
import { processChecks } from './checks/processes.js';
import { refusalChecks } from './checks/refusal.js';
import { restartChecks } from './checks/restart.js';
import { resultChecks } from './checks/results.js';
import { spawnFailureChecks } from './checks/spawn-failure.js';
import { defaultTimeoutChecks, timeoutChecks } from './checks/timeout.js';
import { truncationChecks } from './checks/truncation.js';
import { openRunner, type RunnerCtx, type RunnerSuiteOptions } from './context.js';
import { describeTarget, type RunnerTarget, targetArgs } from './target.js';

/** The runner suite with its own tuning (property caps, environment). */
export function createRunnerSuite(options: RunnerSuiteOptions = {}): Suite<RunnerTarget, RunnerCtx> {
  return {
    name: 'runner',
    description:
      'Feeds a bash runner command tool_use lines and checks its tool_result lines and the processes it leaves behind.',
    checks: [
      ...resultChecks,
      ...refusalChecks,
      ...executionChecks,
      ...environmentChecks,
      ...outputChecks,
      ...exitStatusChecks,
      ...truncationChecks,
      ...timeoutChecks,
      ...processChecks,
      ...restartChecks,
      ...inputChecks,
      ...spawnFailureChecks,
      ...floodChecks,
      // Last: its session started with the suite, so by now it has (nearly) finished.
      ...defaultTimeoutChecks,
      // After every other: it judges what each session of the run left running.
      ...leftoverChecks,
    ],
    describeTarget,
    targetArgs,
    open: (target, env) => openRunner(target, options, env.signal),
  };
}

export const runnerSuite = createRunnerSuite();
