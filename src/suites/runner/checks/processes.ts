import { type Check, CheckFailure, CheckSkipped, expectThat, NotExercised } from '../../../harness/check.js';
import { KILL_GRACE_MS } from '../../../protocol/bash/index.js';
import type { RunnerCtx, SessionAsker } from '../context.js';
import { ESCAPED } from '../cwd-markers.js';
import { abbreviate, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import { canScanProcesses, type Marker, newMarker } from '../processes.js';
import type { SessionRun } from '../session.js';
import {
  type AnswerTiming,
  answerTiming,
  bunchedAnswers,
  excusedNote,
  judgeAnswerTime,
  MAX_EXCUSED_LAG_MS,
  warmUpLine,
} from '../timing.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const GROUP =
  'Runner contract for the shell tool, items 2 (own process group) and 3 (the whole process group is terminated at the timeout)';
const ENVIRONMENT =
  'Limits ("recommended environment controls for the runner: ephemeral container or micro virtual machine destroyed at session end")';
const LEFTOVER_RULE =
  "The spec kills a command's process group only at its timeout, and recommends (does not require) an environment destroyed at the end of the session. Following that recommendation, nothing a command starts outlives the runner.";
/** Timeout of the pipe case: far longer than the answer may take, so waiting for it shows. */
const PIPE_TIMEOUT_S = 10;
/**
 * A runner may wait a moment for its pipes to drain (Codex waits 2 s), plus starting the
 * command; measured from the answer to a warm-up line, so the runner's own start-up is not in it.
 */
const PIPE_ANSWER_MS = KILL_GRACE_MS + 2000;

interface LeftoverSession {
  readonly run: SessionRun;
  readonly background: Marker;
  readonly escapee: Marker;
  /** A second-long foreground sleep that proves the harness sees the runner's processes. */
  readonly probe: Marker;
}

/**
 * Starts a background job and a setsid escapee, and says `started` only once the escapee is in
 * its session: a runner that ends the command's group as the command ends would otherwise
 * often end the escapee before it escaped, and pass on a race.
 */
function startJobsCommand(background: Marker, escapee: Marker): string {
  return [
    `${background.command} >/dev/null 2>&1 &`,
    `setsid sh -c 'echo $$ > ${ESCAPED}; exec ${escapee.command}' >/dev/null 2>&1 &`,
    `i=0; while [ ! -s ${ESCAPED} ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done;`,
    `if [ -s ${ESCAPED} ]; then echo started; else echo 'the escapee did not start'; fi`,
  ].join(' ');
}

/** A background job and a setsid escapee started by one command, then a second-long command. */
function leftoverSession(ctx: RunnerCtx, asker: SessionAsker): Promise<LeftoverSession> {
  return ctx.shared('leftovers', asker, async () => {
    const background = newMarker(314);
    const escapee = newMarker(315);
    const probe = newMarker(1);
    const run = await ctx.run({
      lines: [toolUse(startJobsCommand(background, escapee)), toolUse(probe.command)],
      timeoutS: PIPE_TIMEOUT_S,
      budgetMs: quickBudgetMs(2, 1000),
      watch: [background, escapee, probe],
      signal: asker.signal,
    });
    return { run, background, escapee, probe };
  });
}

function expectGone(session: LeftoverSession, marker: Marker, what: string): void {
  if (!canScanProcesses()) throw new CheckSkipped('this machine has no /proc to look for leftover processes');
  const { run } = session;
  // Both lines must have been answered before anything is judged (resultAt fails otherwise).
  const started = resultAt(run, 0, 'a command that starts background jobs').content;
  resultAt(run, 1, session.probe.command);
  if (!run.seen.has(session.probe.arg)) {
    throw new NotExercised(
      "the harness never saw the runner's commands in /proc: they are not visible from here (another machine or PID namespace)",
    );
  }
  // Started: seen in /proc, or the command ran through to its echo with nothing on stderr (a
  // runner that ends the jobs with the command may end them before a /proc scan sees them).
  // A refused command, or a shell without setsid, started nothing that could outlive the runner.
  if (!run.seen.has(marker.arg) && started.trim() !== 'started') {
    throw new NotExercised(
      `the command that starts ${what} (\`${marker.command}\`) did not run through (${abbreviate(started)}) and the harness never saw the job, so there is nothing that could outlive the runner`,
    );
  }
  const left = run.leftovers.get(marker.arg);
  if (left !== undefined) {
    throw new CheckFailure(
      `${what} (\`${marker.command}\`) still ran after the runner exited`,
      'no process of any command left once the runner exits',
      left.map((p) => `pid ${p.pid} pgid ${p.pgid} sid ${p.sid}`).join('; '),
    );
  }
}

/**
 * When the pipe-holding command (line 1) was answered, and from what. Measured from the warm-up
 * answer; but answers that came close together (a runner holding them all until stdin closes,
 * as Python's print to a pipe does, or writing them out one by one at its end) may both be as
 * late as the last command, so their gap says nothing. Then from when the command's background
 * job was first seen running, whose answer a runner that holds its answers writes as soon as it
 * has it (this is the last line); a job never seen (a sandbox that ends it with the shell before
 * a scan finds it), from the session's start: every line is written then, so an answer stamped
 * before the command's timeout could run out (no lag excused: a late stamp only errs towards not
 * judging) shows a runner that did not wait for the pipes; a later one is not judged.
 */
function pipeAnswerTiming(
  run: SessionRun,
  holder: Marker,
  what: string,
): { timing: AnswerTiming; since: string } {
  const bunched = bunchedAnswers(run, 1, PIPE_ANSWER_MS);
  if (bunched === undefined) {
    return {
      timing: answerTiming(run, 1, { earliestMs: 0, latestMs: PIPE_ANSWER_MS }),
      since: 'the previous answer',
    };
  }
  const answeredAt = run.outputs[1]!.atMs;
  const started = run.firstSeenMs.get(holder.arg);
  if (started === undefined) {
    if (answeredAt >= PIPE_TIMEOUT_S * 1000) {
      throw new NotExercised(
        `${what}: its answer and the warm-up's came together (${bunched}), ${Math.round(answeredAt)} ms after the session began: the runner held its answers back (a buffered stdout) or the harness read both late, and the command's background job was never seen in /proc, so whether it waited for the pipes cannot be told`,
      );
    }
    return {
      timing: { kind: 'in-time', delayMs: answeredAt, excusedMs: 0 },
      since: `the session began (its answer and the warm-up's came together, before its ${PIPE_TIMEOUT_S} s timeout could have run out)`,
    };
  }
  return {
    timing: judgeAnswerTime(answeredAt - started, run.harnessLagMs, {
      earliestMs: Number.NEGATIVE_INFINITY,
      latestMs: PIPE_ANSWER_MS,
    }),
    since: `its background job was first seen running (its answer and the warm-up's came together: ${bunched})`,
  };
}

export const processChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.processes.background-job',
    clause: `${GROUP}; ${ENVIRONMENT}`,
    description: 'A background job a command leaves behind does not outlive the runner.',
    level: 'should',
    basis: 'protocol-should',
    rule: LEFTOVER_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await leftoverSession(ctx, env);
      expectGone(session, session.background, 'a background job');
    },
  },
  {
    id: 'runner.processes.setsid-escapee',
    clause: `${GROUP}; ${ENVIRONMENT}`,
    description: 'A background job that moved to its own session with setsid does not outlive the runner.',
    level: 'should',
    basis: 'protocol-should',
    rule: `${LEFTOVER_RULE} A process that left its group with setsid is caught only by stronger isolation (a PID namespace, a container).`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await leftoverSession(ctx, env);
      expectGone(session, session.escapee, 'a setsid background job');
    },
  },
  {
    id: 'runner.processes.pipe-holder',
    clause:
      'Runner contract for the shell tool, items 2 (captured stdout and stderr) and 8 (one result per tool_use); not stated: a background job holding the output pipes',
    description: `A command that exits while its background job keeps stdout open is answered at once (within ${PIPE_ANSWER_MS} ms of the previous answer; when the answers came together, of its job's start, or before its ${PIPE_TIMEOUT_S} s timeout could run out), not at the timeout.`,
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec does not say when output capture ends. A command that has exited should be answered soon (after a short drain), even while a background job it started still holds stdout open; waiting for the pipe would turn a finished command into a timeout.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const holder = newMarker(316);
      const run = await ctx.run({
        lines: [warmUpLine(), toolUse(`${holder.command} & echo started`)],
        timeoutS: PIPE_TIMEOUT_S,
        budgetMs: quickBudgetMs(2, PIPE_TIMEOUT_S * 1000 + KILL_GRACE_MS + MAX_EXCUSED_LAG_MS),
        watch: [holder],
        signal: env.signal,
      });
      const what = `${holder.command} & echo started`;
      const result = resultAt(run, 1, what);
      const { timing, since } = pipeAnswerTiming(run, holder, what);
      if (timing.kind === 'unjudged') {
        throw new NotExercised(
          `${what}: answered ${Math.round(timing.delayMs)} ms after ${since}, but the harness itself lagged ${Math.round(timing.lagMs)} ms meanwhile (a busy machine): too late to time the answer`,
        );
      }
      const delay = Math.round(timing.delayMs);
      expectThat(
        timing.kind === 'in-time',
        `${what}: answered ${delay} ms after ${since}: the runner waited for the background job's pipes${excusedNote(timing)}`,
        `<= ${PIPE_ANSWER_MS} ms`,
        `${delay} ms`,
      );
      expectThat(
        result.content.startsWith('started'),
        `${what}: the output of the command was lost`,
        '"started\\n"',
        abbreviate(result.content),
      );
    },
  },
];
