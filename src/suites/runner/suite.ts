import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareStart } from '../../harness/bare-start.js';
import type { Check, Suite } from '../../harness/check.js';
import { targetScrubber } from '../target-secrets.js';
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
import { inCase, openRunner, type RunnerCtx, type RunnerSuiteOptions, stableRunnerText } from './context.js';
import { describeTarget, type RunnerTarget, targetArgs } from './target.js';

/** The runner suite with its own tuning (property caps, environment). */
export function createRunnerSuite(options: RunnerSuiteOptions = {}): Suite<RunnerTarget, RunnerCtx> {
  return {
    name: 'runner',
    concurrent: true,
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
    ].map(namingItsCases),
    describeTarget,
    targetArgs,
    scrubber: (target) => {
      const secrets = targetScrubber({ commands: [target.runner] });
      return secrets === undefined ? stableRunnerText : (text) => stableRunnerText(secrets(text));
    },
    open: (target, env) => openRunner(target, options, env.signal, env.seed),
    bareStart: (target) => bareRunnerStart(target, options),
  };
}

/** The check, with the working directories of its sessions named after it (context.ts, inCase). */
function namingItsCases(check: Check<RunnerCtx>): Check<RunnerCtx> {
  return { ...check, run: (ctx, env) => inCase(check.id, () => check.run(ctx, env)) };
}

/** The runner started with no line to answer: stdin closed at once, an empty working directory. */
function bareRunnerStart(target: RunnerTarget, options: RunnerSuiteOptions): BareStart {
  const dir = mkdtempSync(join(tmpdir(), 'wirecheck-runner-bare-'));
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(options.baseEnv ?? process.env)) {
    if (!name.startsWith('WIRECHECK_')) env[name] = value;
  }
  return {
    what: 'runner',
    command: target.runner,
    env: { ...env, WIRECHECK_WORKDIR: join(dir, 'workdir'), WIRECHECK_TIMEOUT_S: '10' },
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const runnerSuite = createRunnerSuite();
