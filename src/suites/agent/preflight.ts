import { outputPart } from '../../harness/output-lines.js';
import type { CommandRun } from '../../harness/run-command.js';

/**
 * Why a run shows that the agent command cannot be started at all, or undefined: a spawn
 * error, or sh's own "cannot execute" (126) and "not found" (127) statuses.
 */
export function cannotStart(run: CommandRun): string | undefined {
  if (run.spawnError) return `could not be started: ${run.spawnError.message}`;
  if (run.exitCode === 126 || run.exitCode === 127) {
    return `could not be started by sh -c (exit ${run.exitCode}${outputPart('stderr', run.stderr)})`;
  }
  return undefined;
}

/** How the run ended and the first lines of what it printed, for a message about the target. */
export function describeOutput(run: CommandRun): string {
  const how = run.spawnError
    ? `it could not start (${run.spawnError.message})`
    : run.timedOut
      ? `it did not exit within ${Math.round(run.durationMs)} ms`
      : run.exitCode === null
        ? `it ended on signal ${run.signal ?? 'none'}`
        : `it exited with status ${run.exitCode}`;
  return `${how}${outputPart('stdout', run.stdout)}${outputPart('stderr', run.stderr)}`;
}
