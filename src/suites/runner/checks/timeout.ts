import { join } from 'node:path';
import { type Check, CheckFailure, CheckSkipped, expectThat, NotExercised } from '../../../harness/check.js';
import { readTargetFile } from '../../../harness/target-file.js';
import { DEFAULT_TIMEOUT_S, KILL_GRACE_MS } from '../../../protocol/bash/index.js';
import type { RunnerCtx, SessionAsker } from '../context.js';
import { TERM_SEEN } from '../cwd-markers.js';
import { defaultTimeoutSession } from '../default-timeout.js';
import {
  abbreviate,
  describeSession,
  expectIsError,
  expectMatches,
  mentions,
  numberPattern,
  resultAt,
} from '../expect.js';
import { toolUse } from '../lines.js';
import { canScanProcesses, type Marker, newMarker } from '../processes.js';
import type { SessionRun } from '../session.js';
import { answerDelayMs, answerTiming, bunchedAnswers, excusedNote, warmUpLine } from '../timing.js';
import {
  CASE_BUDGET_MS,
  KILL_LATENCY_MS,
  latestAnswerMs,
  MAX_GRACE_MS,
  MAX_SLOW_RUNNER_ALLOWANCE_MS,
  TIMEOUT_SLACK_MS,
  timedSessionBudgetMs,
} from './common.js';

const ITEM_3 = 'Runner contract for the shell tool, item 3 (Timeout)';
const ERRORS = 'Errors (shell command times out)';
const LIMITS = 'Limits (shell command timeout 20 seconds default; grace 2 seconds for one reference runner)';
/**
 * "text stating that the command timed out", in the words a runner may choose. The gaps are
 * bounded (a sentence's worth after "exceeded"): an unbounded one backtracks quadratically
 * on "exceed " repeated.
 */
export const TIMED_OUT =
  /timed?[\s_-]{0,16}out|time\s{0,16}limit|deadline|expired|(took|ran|running)( for)? (too|longer|more than \d)|still running after|exceed(ed|s|ing)?[^.\n]{0,200}\b(time|seconds?|\d{1,12}\s{0,16}s)\b|(did not|didn't|failed to) (finish|complete|end)|killed after|(terminated|cancell?ed|aborted|stopped) after \d/i;

/** Timeout of the case that checks the timeout text: 2, so the number cannot be the -1 of an exit code. */
const TEXT_TIMEOUT_S = 2;
/** Timeout of the process-group case and of the grace case. */
const GROUP_TIMEOUT_S = 1;
/** The timed command's line in a timed session: the warm-up line comes first (timing.ts). */
export const TIMED_LINE = 1;
/**
 * The process-group case keeps the runner busy after the timed-out answer with these lines,
 * each shorter than the timeout, together longer than the longest grace the musts allow and
 * the kill latency: a group left alive at the timeout then shows in /proc, even when the
 * runner kills it at exit.
 */
const AFTER_TIMEOUT_LINES = Array.from({ length: Math.ceil((MAX_GRACE_MS + 1500) / 900) }, () =>
  toolUse('sleep 0.9'),
);
/** The process-group case's session budget, and its checks' (a slow runner's allowance on top). */
const GROUP_SESSION_BUDGET_MS = timedSessionBudgetMs(GROUP_TIMEOUT_S) + AFTER_TIMEOUT_LINES.length * 1000;
const GROUP_CHECK_BUDGET_MS = GROUP_SESSION_BUDGET_MS + MAX_SLOW_RUNNER_ALLOWANCE_MS + 10_000;
/** More than "cleaned-up" and a line break: enough to quote what else a runner left there. */
const TERM_SEEN_MAX_BYTES = 4096;

/** A timed-out result: is_error, a "timed out" text, within the timeout, a grace of at most `graceMs` and slack. */
export function expectTimedOut(
  run: SessionRun,
  index: number,
  seconds: number,
  what: string,
  checkNumber: boolean,
  graceMs = MAX_GRACE_MS,
): void {
  const result = resultAt(run, index, what);
  expectIsError(result, true, what);
  expectMatches(result, TIMED_OUT, what, 'state that the command timed out');
  if (checkNumber) {
    expectMatches(result, numberPattern(seconds), what, `state the timeout in seconds (${seconds})`);
  }
  const timing = answerTiming(run, index, timeoutWindow(seconds, graceMs));
  if (timing.kind === 'unjudged') {
    throw new NotExercised(
      `${what}: answered ${Math.round(timing.delayMs)} ms after the previous answer, but the harness itself lagged ${Math.round(timing.lagMs)} ms meanwhile (a busy machine): too late to time the answer`,
    );
  }
  const delay = Math.round(timing.delayMs);
  expectThat(
    timing.kind !== 'late',
    `${what}: the answer came ${delay} ms after the answer before it, later than the timeout of ${seconds} s plus a grace of ${graceMs} ms${excusedNote(timing)}`,
    `<= ${latestAnswerMs(seconds, graceMs)} ms (including ${TIMEOUT_SLACK_MS} ms of slack) plus the harness's own lateness`,
    `${delay} ms`,
  );
  expectThat(
    timing.kind !== 'early',
    `${what}: the command was stopped before its timeout of ${seconds} s: answered ${delay} ms after the runner started${excusedNote(timing)}`,
    `>= ${seconds * 1000} ms after the runner started`,
    `${delay} ms`,
  );
}

/**
 * When a timed-out answer may arrive after the previous answer: not before the timeout
 * (a little early for timer rounding), not after the timeout, the grace and the slack.
 */
export function timeoutWindow(
  seconds: number,
  graceMs = MAX_GRACE_MS,
): { earliestMs: number; latestMs: number } {
  return { earliestMs: seconds * 1000 - 100, latestMs: latestAnswerMs(seconds, graceMs) };
}

export interface GroupSession {
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
function groupSession(ctx: RunnerCtx, asker: SessionAsker): Promise<GroupSession> {
  return ctx.shared('timeout-group', asker, async () => {
    const background = newMarker(311);
    const stubborn = newMarker(312);
    // Longer than the session's budget: a runner that never sends the kill signal gives no answer.
    const foreground = newMarker(90);
    const command =
      `${background.command} >/dev/null 2>&1 & ` +
      `(trap '' TERM; exec ${stubborn.command}) >/dev/null 2>&1 & ` +
      `trap '' TERM; ${foreground.command}`;
    const run = await ctx.run({
      lines: [warmUpLine(), toolUse(command), ...AFTER_TIMEOUT_LINES],
      timeoutS: GROUP_TIMEOUT_S,
      budgetMs: GROUP_SESSION_BUDGET_MS,
      watch: [background, stubborn, foreground],
      signal: asker.signal,
    });
    return { run, background, stubborn, foreground };
  });
}

/**
 * The marked process is gone after the timeout; not exercised when the harness never saw any
 * of the case's processes. False when the marked one itself was never seen (nothing of it to
 * judge, though a leftover of it still fails).
 */
export function expectKilled(
  session: GroupSession,
  marker: Marker,
  what: string,
  graceMs = MAX_GRACE_MS,
): boolean {
  if (!canScanProcesses()) throw new CheckSkipped('this machine has no /proc to look for leftover processes');
  const { run } = session;
  resultAt(run, TIMED_LINE, 'a command that outlives its timeout');
  const visible = [session.background, session.stubborn, session.foreground].some((m) => run.seen.has(m.arg));
  if (!visible) {
    throw new NotExercised(
      "the harness never saw the command's processes in /proc: they are not visible from here (another machine or PID namespace)",
    );
  }
  expectNoLeftover(run, marker, what);
  if (!run.seen.has(marker.arg)) return false;
  // A timed-out answer comes at least the timeout after the warm-up's; closer and written
  // together, both were held back (a buffered stdout) and its arrival does not tell when the
  // timeout fired.
  const bunched = bunchedAnswers(run, TIMED_LINE, GROUP_TIMEOUT_S * 1000 - 100);
  if (bunched !== undefined) {
    throw new NotExercised(
      `the timed-out answer came ${Math.round(answerDelayMs(run, TIMED_LINE))} ms after the warm-up answer, less than the ${GROUP_TIMEOUT_S} s timeout, and ${bunched}: the runner wrote its answers together (a buffered stdout), or the harness read both late, so when it ended the group cannot be told; none of its processes outlived the session`,
    );
  }
  // Judged at the timeout, not only once the runner exits: a runner that kills everything
  // at its exit (a sandbox torn down) but only the shell at the timeout breaks the rule.
  // The grace counts from the answer, or from the timeout when the answer came later still.
  const answeredAt = run.outputs[TIMED_LINE]!.atMs;
  const timedOutAt = (run.outputs[TIMED_LINE - 1]?.atMs ?? 0) + GROUP_TIMEOUT_S * 1000;
  const from = Math.min(answeredAt, timedOutAt + TIMEOUT_SLACK_MS);
  const lastSeen = run.lastSeenMs.get(marker.arg);
  const latest = from + graceMs + KILL_LATENCY_MS;
  expectThat(
    lastSeen === undefined || lastSeen <= latest,
    `${what} (\`${marker.command}\`) still ran ${Math.round((lastSeen ?? 0) - from)} ms after ${from === answeredAt ? 'the timed-out answer' : `the timeout and ${TIMEOUT_SLACK_MS} ms of slack (the answer came later)`}: the whole process group was not terminated at the timeout`,
    `no process of the timed-out command later than ${graceMs + KILL_LATENCY_MS} ms after its answer (or the timeout, when that came later)`,
    `${(run.seen.get(marker.arg) ?? []).map((p) => `pid ${p.pid} pgid ${p.pgid}`).join('; ')} last seen ${Math.round(lastSeen ?? 0)} ms after the start; the timed-out answer at ${Math.round(answeredAt)} ms`,
  );
  return true;
}

/** Not exercised: the process a check judges never showed up, though others of the command did. */
function unseen(marker: Marker): NotExercised {
  return new NotExercised(
    `\`${marker.command}\` never showed up in /proc, though other processes of the timed-out command did: whether the timeout ended it cannot be told`,
  );
}

/** The marked process of the timed-out command did not outlive the session. */
function expectNoLeftover(run: SessionRun, marker: Marker, what: string): void {
  const left = run.leftovers.get(marker.arg);
  if (left !== undefined) {
    throw new CheckFailure(
      // Pids only in `actual`: they differ in every run, and the message is to read the same with one seed.
      `${what} (\`${marker.command}\`) still ran after the timeout: the whole process group was not terminated`,
      'no process of the timed-out command left',
      left.map((p) => `pid ${p.pid} pgid ${p.pgid} state ${p.state}`).join('; '),
    );
  }
}

export const timeoutChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.timeout.expiry',
    schedule: 'waits',
    clause: `${ITEM_3}; ${ERRORS}`,
    description: `\`sleep 30\` with WIRECHECK_TIMEOUT_S=${TEXT_TIMEOUT_S} is stopped at the timeout: is_error true and a text stating it timed out after ${TEXT_TIMEOUT_S} seconds.`,
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: a command still running when its timeout expires is stopped, and its tool_result has is_error true and a text stating that the command timed out after the timeout in seconds.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const sleeper = newMarker(30);
      const run = await ctx.run({
        lines: [warmUpLine(), toolUse(sleeper.command)],
        timeoutS: TEXT_TIMEOUT_S,
        budgetMs: timedSessionBudgetMs(TEXT_TIMEOUT_S),
        // Not watched: this check judges the answer alone (the group checks judge what is
        // left), and watching scans /proc every 50 ms while the session runs.
        signal: env.signal,
      });
      expectTimedOut(run, TIMED_LINE, TEXT_TIMEOUT_S, 'sleep 30', true);
    },
  },
  {
    id: 'runner.timeout.term-ignored',
    schedule: 'waits',
    clause: `${ITEM_3} (terminate signal, then the kill signal; another reference runner kills at once)`,
    description:
      'A command that ignores SIGTERM is still ended at the timeout (by the kill signal): the timeout result arrives.',
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every runner: at the timeout the whole process group is terminated, ending with the kill signal (a reference runner waits up to 2 s, another kills at once; a grace of up to ${MAX_GRACE_MS / 1000} s passes here, runner.timeout.grace-2s warns past 2 s). A command that ignores the terminate signal still ends, and its timeout result arrives.`,
    timeoutMs: GROUP_CHECK_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await groupSession(ctx, env);
      expectTimedOut(run, TIMED_LINE, GROUP_TIMEOUT_S, "trap '' TERM; sleep 30", false);
    },
  },
  {
    id: 'runner.timeout.kills-group',
    schedule: 'waits',
    clause: `${ITEM_3} (the whole process group is terminated)`,
    description: 'A background job of a timed-out command is terminated with it.',
    level: 'must',
    basis: 'spec',
    rule: "The spec, for every runner: on expiry of the timeout the command's whole process group is terminated, not only the shell it started.",
    timeoutMs: GROUP_CHECK_BUDGET_MS,
    async run(ctx, env) {
      const session = await groupSession(ctx, env);
      // It dies at the terminate signal, whatever grace the kill signal waits for.
      if (!expectKilled(session, session.background, 'a background job', KILL_GRACE_MS)) {
        throw unseen(session.background);
      }
    },
  },
  {
    id: 'runner.timeout.kills-term-ignoring-child',
    schedule: 'waits',
    clause: `${ITEM_3} (terminate signal, then the kill signal, to the whole group)`,
    description: 'A background job that ignores SIGTERM is killed too, and so is the foreground command.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: the whole process group of a timed-out command ends with the kill signal, so processes of the group that ignore the terminate signal are gone too.',
    timeoutMs: GROUP_CHECK_BUDGET_MS,
    async run(ctx, env) {
      const session = await groupSession(ctx, env);
      const stubborn = expectKilled(session, session.stubborn, 'a background job that ignores SIGTERM');
      expectKilled(session, session.foreground, 'the foreground command, which ignores SIGTERM');
      if (!stubborn) throw unseen(session.stubborn);
    },
  },
  {
    id: 'runner.timeout.term-grace',
    schedule: 'waits',
    clause: `${ITEM_3} ("terminate signal, wait up to 2 seconds, then kill signal; another reference runner kills at once"); ${LIMITS}`,
    description:
      'At the timeout the command first gets the terminate signal: a command that handles it (writes a file and exits) gets to run its handler.',
    level: 'should',
    basis: 'spec-reference',
    rule: 'One reference runner sends the terminate signal at the timeout and the kill signal only after waiting up to 2 s; another reference runner kills at once. Sending the terminate signal first lets a command clean up.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const command = `trap 'echo cleaned-up > ${TERM_SEEN}; exit 0' TERM; sleep 30 & wait $!`;
      const run = await ctx.run({
        lines: [warmUpLine(), toolUse(command)],
        timeoutS: GROUP_TIMEOUT_S,
        budgetMs: timedSessionBudgetMs(GROUP_TIMEOUT_S),
        signal: env.signal,
      });
      const what = 'a command whose TERM handler writes a file';
      const result = resultAt(run, TIMED_LINE, what);
      if (!mentions(TIMED_OUT, result.content)) {
        throw new NotExercised(
          `the command was not answered as timed out (${abbreviate(result.content)}): runner.timeout.expiry judges that`,
        );
      }
      const path = join(run.workdir, TERM_SEEN);
      const file = readTargetFile(path, TERM_SEEN_MAX_BYTES);
      const written = file.kind === 'text' ? file.text : undefined;
      expectThat(
        written?.trim() === 'cleaned-up',
        `${what}: its handler never ran: the command was killed at the timeout without the terminate signal first (${describeSession(run)})`,
        `the terminate signal first, then up to ${KILL_GRACE_MS} ms: ${TERM_SEEN} holding "cleaned-up" in the working directory`,
        file.kind === 'text'
          ? `${TERM_SEEN} holding ${abbreviate(file.text)}${file.cut ? ' (and more)' : ''}`
          : file.kind === 'absent'
            ? `no ${TERM_SEEN}`
            : `${TERM_SEEN} is ${file.what}`,
      );
    },
  },
  {
    id: 'runner.timeout.grace-2s',
    schedule: 'waits',
    clause: `${ITEM_3} ("wait up to 2 seconds, then kill signal"); ${LIMITS}`,
    description:
      'A timed-out command that ignores SIGTERM is killed within the 2 s grace: its answer, and the end of its group, come at most 2 s after the timeout (plus slack).',
    level: 'should',
    basis: 'spec-reference',
    rule: `One reference runner waits up to 2 s between the terminate and the kill signal, another kills at once; the spec sets no grace for every runner (the musts allow ${MAX_GRACE_MS / 1000} s). A runner should not keep a timed-out command longer than the reference's 2 s.`,
    timeoutMs: GROUP_CHECK_BUDGET_MS,
    async run(ctx, env) {
      const session = await groupSession(ctx, env);
      expectTimedOut(
        session.run,
        TIMED_LINE,
        GROUP_TIMEOUT_S,
        "trap '' TERM; sleep 30",
        false,
        KILL_GRACE_MS,
      );
      const what = 'a background job that ignores SIGTERM';
      if (!expectKilled(session, session.stubborn, what, KILL_GRACE_MS)) throw unseen(session.stubborn);
    },
  },
];

/**
 * The real default. Its session starts when the suite opens (see default-timeout.ts), so
 * by the time this check runs most of the 20 s have passed.
 */
export const defaultTimeoutChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.timeout.default-20s',
    schedule: 'waits',
    // The default alone: the sleeper dies at the terminate signal, and the kill grace is only
    // an upper bound (another reference runner kills at once), so no runner has to wait it out.
    prescribedWaitMs: DEFAULT_TIMEOUT_S * 1000,
    clause: `${ITEM_3} ("default 20 seconds"); ${LIMITS}`,
    description: `Without WIRECHECK_TIMEOUT_S a command is stopped at the default of ${DEFAULT_TIMEOUT_S} s (run in the background while the other checks run).`,
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every runner: the per-command timeout is ${DEFAULT_TIMEOUT_S} seconds by default (the target contract: when WIRECHECK_TIMEOUT_S is unset). A command outliving it gets the timeout result, neither earlier nor much later.`,
    // The session started with the suite; waiting for it takes at most its own budget.
    timeoutMs: timedSessionBudgetMs(DEFAULT_TIMEOUT_S) + 10_000,
    async run(ctx) {
      const { run, sleeper } = await defaultTimeoutSession(ctx);
      expectTimedOut(run, TIMED_LINE, DEFAULT_TIMEOUT_S, `${sleeper.command} with the default timeout`, true);
    },
  },
];
