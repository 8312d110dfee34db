import { type Check, CheckFailure, CheckSkipped, expectThat } from '../../../harness/check.js';
import { DEFAULT_TIMEOUT_S, KILL_GRACE_MS } from '../../../protocol/bash/index.js';
import type { RunnerCtx } from '../context.js';
import { answerDelayMs, expectIsError, expectMatches, numberPattern, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import { canScanProcesses, type Marker, newMarker } from '../processes.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, TIMEOUT_SLACK_MS } from './common.js';

const CLAUSE = 'Runner contract 3; Errors (shell command times out); Limits (timeout, grace)';
const TIMED_OUT = /timed?[\s_-]*out/i;

/** Timeout of the case that checks the timeout text: 2, so the number cannot be the -1 of an exit code. */
const TEXT_TIMEOUT_S = 2;
/** Timeout of the process-group case. */
const GROUP_TIMEOUT_S = 1;

/**
 * A timed-out answer later than latestAnswerMs fails anyway (start-up is part of the
 * slack), so the session needs only a little more: enough to see the runner exit.
 */
const ANSWER_BUDGET_MARGIN_MS = 1000;

/** Upper bound on the answer to a command that outlives a timeout of `seconds`. */
function latestAnswerMs(seconds: number): number {
  return seconds * 1000 + KILL_GRACE_MS + TIMEOUT_SLACK_MS;
}

/** A timed-out result: is_error, a "timed out" text, within the timeout, grace and slack. */
function expectTimedOut(run: SessionRun, seconds: number, what: string, checkNumber: boolean): void {
  const result = resultAt(run, 0, what);
  expectIsError(result, true, what);
  expectMatches(result, TIMED_OUT, what, 'state that the command timed out');
  if (checkNumber) {
    expectMatches(result, numberPattern(seconds), what, `state the timeout in seconds (${seconds})`);
  }
  const delay = answerDelayMs(run, 0);
  expectThat(
    delay <= latestAnswerMs(seconds),
    `${what}: the answer came ${Math.round(delay)} ms after the start, later than the timeout of ${seconds} s plus the ${KILL_GRACE_MS} ms grace`,
    `<= ${latestAnswerMs(seconds)} ms (including ${TIMEOUT_SLACK_MS} ms of slack)`,
    `${Math.round(delay)} ms`,
  );
  expectThat(
    delay >= seconds * 1000 - 100,
    `${what}: the command was stopped after ${Math.round(delay)} ms, before its timeout of ${seconds} s`,
    `>= ${seconds * 1000} ms`,
    `${Math.round(delay)} ms`,
  );
}

interface GroupSession {
  readonly run: SessionRun;
  /** A background job in the command's group. */
  readonly background: Marker;
  /** A background job that ignores the terminate signal. */
  readonly stubborn: Marker;
  /** The foreground command, which ignores the terminate signal too. */
  readonly foreground: Marker;
}

/**
 * One command that outlives a 1 s timeout with three long sleeps in its group: a plain
 * background job, a background job that ignores SIGTERM, and a foreground one that
 * ignores SIGTERM (so only the kill signal after the grace ends the command).
 */
function groupSession(ctx: RunnerCtx, signal: AbortSignal): Promise<GroupSession> {
  return ctx.shared('timeout-group', async () => {
    const background = newMarker(311);
    const stubborn = newMarker(312);
    const foreground = newMarker(30);
    const command =
      `${background.command} >/dev/null 2>&1 & ` +
      `(trap '' TERM; exec ${stubborn.command}) >/dev/null 2>&1 & ` +
      `trap '' TERM; ${foreground.command}`;
    const run = await ctx.run({
      lines: [toolUse(command)],
      timeoutS: GROUP_TIMEOUT_S,
      budgetMs: ANSWER_BUDGET_MARGIN_MS + latestAnswerMs(GROUP_TIMEOUT_S),
      watch: [background, stubborn, foreground],
      signal,
    });
    return { run, background, stubborn, foreground };
  });
}

/** The marked process is gone after the timeout; skipped when the harness never saw any of the case's processes. */
function expectKilled(session: GroupSession, marker: Marker, what: string): void {
  if (!canScanProcesses()) throw new CheckSkipped('this machine has no /proc to look for leftover processes');
  const { run } = session;
  resultAt(run, 0, 'a command that outlives its timeout');
  const visible = [session.background, session.stubborn, session.foreground].some((m) => run.seen.has(m.arg));
  if (!visible) {
    throw new CheckSkipped(
      "the harness never saw the command's processes in /proc: they are not visible from here",
    );
  }
  const left = run.leftovers.get(marker.arg);
  if (left !== undefined) {
    throw new CheckFailure(
      `${what} (\`${marker.command}\`, pid ${left.map((p) => p.pid).join(', ')}) still ran after the timeout: the whole process group was not terminated`,
      'no process of the timed-out command left',
      left.map((p) => `pid ${p.pid} pgid ${p.pgid} state ${p.state}`).join('; '),
    );
  }
}

export const timeoutChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.timeout.expiry',
    clause: CLAUSE,
    description: `\`sleep 30\` with WIRECHECK_TIMEOUT_S=${TEXT_TIMEOUT_S} is stopped at the timeout: is_error true and a text stating it timed out after ${TEXT_TIMEOUT_S} seconds.`,
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const sleeper = newMarker(30);
      const run = await ctx.run({
        lines: [toolUse(sleeper.command)],
        timeoutS: TEXT_TIMEOUT_S,
        budgetMs: ANSWER_BUDGET_MARGIN_MS + latestAnswerMs(TEXT_TIMEOUT_S),
        watch: [sleeper],
        signal: env.signal,
      });
      expectTimedOut(run, TEXT_TIMEOUT_S, 'sleep 30', true);
    },
  },
  {
    id: 'runner.timeout.term-ignored',
    clause: `${CLAUSE} (terminate signal, up to 2 s, then the kill signal)`,
    description:
      'A command that ignores SIGTERM is killed after the grace: the timeout result still arrives.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await groupSession(ctx, env.signal);
      expectTimedOut(run, GROUP_TIMEOUT_S, "trap '' TERM; sleep 30", false);
    },
  },
  {
    id: 'runner.timeout.kills-group',
    clause: `${CLAUSE} (the whole process group is terminated)`,
    description: 'A background job of a timed-out command is terminated with it.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await groupSession(ctx, env.signal);
      expectKilled(session, session.background, 'a background job');
    },
  },
  {
    id: 'runner.timeout.kills-term-ignoring-child',
    clause: `${CLAUSE} (terminate signal, then the kill signal, to the whole group)`,
    description: 'A background job that ignores SIGTERM is killed too.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await groupSession(ctx, env.signal);
      expectKilled(session, session.stubborn, 'a background job that ignores SIGTERM');
      expectKilled(session, session.foreground, 'the foreground command, which ignores SIGTERM');
    },
  },
  {
    id: 'runner.timeout.default-20s',
    clause: `${CLAUSE}; Limits (shell command timeout 20 seconds default)`,
    description: `Without WIRECHECK_TIMEOUT_S the timeout is the default ${DEFAULT_TIMEOUT_S} s.`,
    level: 'must',
    tier: 'full',
    timeoutMs: 120_000,
    async run(ctx, env) {
      const sleeper = newMarker(40);
      const run = await ctx.run({
        lines: [toolUse(sleeper.command)],
        timeoutS: undefined,
        budgetMs: ANSWER_BUDGET_MARGIN_MS + latestAnswerMs(DEFAULT_TIMEOUT_S),
        watch: [sleeper],
        signal: env.signal,
      });
      expectTimedOut(run, DEFAULT_TIMEOUT_S, 'sleep 40 with the default timeout', true);
    },
  },
];
