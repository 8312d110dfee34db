import { type Check, CheckSkipped, expectThat, NotExercised } from '../../../harness/check.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx, type SessionAsker } from '../context.js';
import { expectCommandOutput, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import { canScanProcesses, type Marker, newMarker } from '../processes.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, KILL_LATENCY_MS, quickBudgetMs } from './common.js';

const CLAUSE =
  'Built-in shell tool definition, input `restart` ("true signals that the host discards the current shell session and starts a fresh one")';
const FRESH =
  'The spec, for every host of the shell tool: `restart: true` "signals that the host discards the current shell session and starts a fresh one".';

interface RestartSession {
  readonly run: SessionRun;
  /** Started in the session before the restart. */
  readonly background: Marker;
  /** The foreground sleep of the line after the restart: proves the harness sees the runner's processes. */
  readonly probe: Marker;
}

/**
 * A variable and a background job, then `restart: true`, then a command that looks for
 * the variable while it sleeps a second (long enough for the harness to see whether the
 * background job is still there).
 */
function restartSession(ctx: RunnerCtx, asker: SessionAsker): Promise<RestartSession> {
  return ctx.shared('restart', asker, async () => {
    const background = newMarker(313);
    const probe = newMarker(1);
    const run = await ctx.run({
      lines: [
        toolUse(`WC_STATE=kept; export WC_STATE; ${background.command} >/dev/null 2>&1 & echo started`),
        toolUse('echo restarted', { restart: true }),
        toolUse(`${probe.command}; echo "[\${WC_STATE:-}]"`),
      ],
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(3, 1000),
      watch: [background, probe],
      signal: asker.signal,
    });
    return { run, background, probe };
  });
}

export const restartChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.restart.answered',
    clause: `${CLAUSE}; target contract, runner (one result line per input line)`,
    description:
      'A tool_use with restart: true gets its own tool_result, and the lines after it are answered as usual.',
    level: 'must',
    basis: 'contract',
    rule: 'The target contract, for every runner: every input line gets one result line in order, a line with `restart: true` included, and the session goes on after it.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await restartSession(ctx, env);
      resultAt(run, 0, 'the command before the restart');
      resultAt(run, 1, 'the restart');
      resultAt(run, 2, 'the command after the restart');
    },
  },
  {
    id: 'runner.restart.fresh-session',
    clause: CLAUSE,
    description: 'After a restart, a variable exported in the earlier session is gone.',
    level: 'must',
    basis: 'spec',
    rule: `${FRESH} So nothing of the old session's shell state (an exported variable) is seen after it.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await restartSession(ctx, env);
      const before = resultAt(run, 0, 'the command that exports WC_STATE').content;
      if (before.trim() !== 'started') {
        throw new NotExercised(
          `the command that exports WC_STATE before the restart did not run through (its result: ${JSON.stringify(before.slice(0, 200))}): no variable for the restart to discard`,
        );
      }
      const after = resultAt(run, 2, 'echo "[$WC_STATE]" after the restart');
      expectCommandOutput(after, '[]\n', 'a variable exported before the restart, read after it');
    },
  },
  {
    id: 'runner.restart.jobs-gone',
    clause: CLAUSE,
    description:
      'After a restart, no background job started in the earlier session is still running (read from /proc by the harness).',
    level: 'should',
    basis: 'protocol-should',
    rule: `${FRESH} Whether a discarded session takes its background jobs with it is not stated (the real tool ends its shell process; a runner with one shell per command has no session holding them), so a job of the earlier session still running once the restart is answered is pointed out with a warning.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      if (!canScanProcesses()) throw new CheckSkipped('this machine has no /proc to look for processes');
      const { run, background, probe } = await restartSession(ctx, env);
      resultAt(run, 1, 'the restart');
      resultAt(run, 2, 'the command after the restart');
      if (!run.seen.has(probe.arg)) {
        throw new NotExercised(
          "the harness does not see the runner's processes in /proc (another machine or PID namespace), so whether the old session's job survived cannot be told",
        );
      }
      const started = resultAt(run, 0, 'the command that starts a background job').content;
      if (!run.seen.has(background.arg) && started.trim() !== 'started') {
        throw new NotExercised(
          `the command that starts a background job (\`${background.command}\`) did not run through and the harness never saw the job: nothing could survive the restart`,
        );
      }
      // The command after the restart runs once the restart is done, whenever the answers come
      // (a runner may hold them back until stdin ends): a job alive while it runs survived.
      const restartedAt = Math.min(
        run.outputs[1]!.atMs,
        run.firstSeenMs.get(probe.arg) ?? Number.POSITIVE_INFINITY,
      );
      const lastSeen = run.lastSeenMs.get(background.arg);
      const procs = run.seen.get(background.arg);
      expectThat(
        lastSeen === undefined || lastSeen <= restartedAt + KILL_LATENCY_MS,
        `a background job started before the restart (\`${background.command}\`${procs === undefined ? '' : `, pid ${procs.map((p) => p.pid).join(', ')}`}) still ran ${Math.round((lastSeen ?? 0) - restartedAt)} ms after the restart was answered or the command after it began`,
        `no process of the earlier session later than ${KILL_LATENCY_MS} ms after the restart`,
        `last seen ${Math.round(lastSeen ?? 0)} ms after the start; restart done by ${Math.round(restartedAt)} ms`,
      );
    },
  },
];
