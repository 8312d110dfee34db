import { type Check, CheckSkipped, expectThat, NotExercised } from '../../../harness/check.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx, type SessionAsker } from '../context.js';
import { abbreviate, expectCommandOutput, resultAt } from '../expect.js';
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

/** The variable the session exports before its restart, and what a command reading it prints. */
const KEPT = '[kept]';
const GONE = '[]';
const READ_STATE = `echo "[\${WC_STATE:-}]"`;
/** Where restartSession puts the control, the restart and the line after it. */
const CONTROL = 1;
const RESTART = 2;
const AFTER = 3;

/**
 * A variable and a background job; a command that reads the variable without a restart (the
 * control: does shell state carry over at all?); then `restart: true`; then a command that
 * reads it again while it sleeps a second (long enough for the harness to see whether the
 * background job is still there).
 */
function restartSession(ctx: RunnerCtx, asker: SessionAsker): Promise<RestartSession> {
  return ctx.shared('restart', asker, async () => {
    const background = newMarker(313);
    const probe = newMarker(1);
    const run = await ctx.run({
      lines: [
        toolUse(`WC_STATE=kept; export WC_STATE; ${background.command} >/dev/null 2>&1 & echo started`),
        toolUse(READ_STATE),
        toolUse('echo restarted', { restart: true }),
        toolUse(`${probe.command}; ${READ_STATE}`),
      ],
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(4, 1000),
      watch: [background, probe],
      signal: asker.signal,
    });
    return { run, background, probe };
  });
}

/** A command's result shows it printed `line` (its trailing line break kept or dropped: expectCommandOutput). */
function printed(content: string, line: string): boolean {
  return content === `${line}\n` || content === line;
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
      resultAt(run, CONTROL, 'the command that reads WC_STATE before the restart');
      resultAt(run, RESTART, 'the restart');
      resultAt(run, AFTER, 'the command after the restart');
    },
  },
  {
    id: 'runner.restart.fresh-session',
    clause: CLAUSE,
    description:
      'After a restart, a variable exported in the earlier session is gone (judged where, without a restart, it is still there in the next command).',
    level: 'must',
    basis: 'spec',
    rule: `${FRESH} So nothing of the old session's shell state (an exported variable) is seen after it. A runner that keeps no shell state from one command to the next has none for a restart to discard: there the rule cannot be observed.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await restartSession(ctx, env);
      const before = resultAt(run, 0, 'the command that exports WC_STATE').content;
      if (before.trim() !== 'started') {
        throw new NotExercised(
          `the command that exports WC_STATE before the restart did not run through (its result: ${JSON.stringify(before.slice(0, 200))}): no variable for the restart to discard`,
        );
      }
      // Without this control, a runner with one shell per command would pass on a variable that
      // was never kept, restart or not.
      const control = resultAt(run, CONTROL, 'echo "[$WC_STATE]" in the next command, without a restart');
      if (printed(control.content, GONE)) {
        throw new NotExercised(
          "the runner keeps no shell state between commands (a variable exported by one command is gone in the next, without a restart), so a restart's fresh session cannot be observed",
        );
      }
      if (!printed(control.content, KEPT)) {
        throw new NotExercised(
          `the command that reads WC_STATE in the next command, without a restart, printed neither ${JSON.stringify(KEPT)} nor ${JSON.stringify(GONE)} (its result: ${abbreviate(control.content)}): whether shell state carries over, and so whether a restart discards it, cannot be told`,
        );
      }
      const after = resultAt(run, AFTER, 'echo "[$WC_STATE]" after the restart');
      expectCommandOutput(after, `${GONE}\n`, 'a variable exported before the restart, read after it');
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
      resultAt(run, RESTART, 'the restart');
      resultAt(run, AFTER, 'the command after the restart');
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
        run.outputs[RESTART]!.atMs,
        run.firstSeenMs.get(probe.arg) ?? Number.POSITIVE_INFINITY,
      );
      const lastSeen = run.lastSeenMs.get(background.arg);
      const procs = run.seen.get(background.arg);
      expectThat(
        lastSeen === undefined || lastSeen <= restartedAt + KILL_LATENCY_MS,
        // Pids only in `actual`: they differ in every run, and the message is to read the same with one seed.
        `a background job started before the restart (\`${background.command}\`) still ran ${Math.round((lastSeen ?? 0) - restartedAt)} ms after the restart was answered or the command after it began`,
        `no process of the earlier session later than ${KILL_LATENCY_MS} ms after the restart`,
        `${procs === undefined ? '' : `pid ${procs.map((p) => p.pid).join(', ')} `}last seen ${Math.round(lastSeen ?? 0)} ms after the start; restart done by ${Math.round(restartedAt)} ms`,
      );
    },
  },
];
