import { UsageError } from '../../harness/errors.js';
import { redactCommand } from '../../recording/tools/redact-target.js';
import type { TargetOptionSpec } from '../registry.js';

/** How the harness reaches a bash runner: a shell command (the target contract in the README, runner). */
export interface RunnerTarget {
  /** Run by `sh -c` once per case: tool_use JSON lines on stdin, tool_result JSON lines on stdout. */
  readonly runner: string;
}

export const RUNNER_TARGET_OPTIONS: readonly TargetOptionSpec[] = [
  {
    flags: '--runner <cmd>',
    description:
      'bash runner command, run by sh -c once per case: tool_use JSON lines on stdin, one tool_result JSON line per input line on stdout',
  },
];

/** The target from commander's option values (`--runner` -> `runner`). */
export function runnerTargetFromOptions(opts: Record<string, unknown>): RunnerTarget {
  const { runner } = opts;
  if (typeof runner !== 'string' || runner.trim() === '') {
    throw new UsageError('the runner suite needs --runner "<command>"');
  }
  return { runner };
}

/** The command as reports show it: the credentials written into it redacted (target-secrets.ts). */
export function describeTarget(target: RunnerTarget): string {
  return redactCommand(target.runner);
}

export function targetArgs(target: RunnerTarget): string[] {
  return ['--runner', redactCommand(target.runner)];
}
