import fc from 'fast-check';
import { expect, test } from 'vitest';
import { CheckFailure, NotExercised } from '../../../src/harness/check.js';
import { startLoopLagProbe } from '../../../src/harness/loop-lag.js';
import { DEFAULT_TIMEOUT_S } from '../../../src/protocol/bash/index.js';
import { latestAnswerMs } from '../../../src/suites/runner/checks/common.js';
import { expectTimedOut, TIMED_LINE, timeoutWindow } from '../../../src/suites/runner/checks/timeout.js';
import type { SessionRun } from '../../../src/suites/runner/session.js';
import {
  bunchedAnswers,
  judgeAnswerTime,
  MAX_EXCUSED_LAG_MS,
  UNMEASURED_READ_LAG_MS,
} from '../../../src/suites/runner/timing.js';
import { timedSessionRun } from './timed-run.js';

// Timing verdicts judged on made-up arrival times: a harness that stamps each answer late by
// up to its measured lag, and a runner slow to start, must not move the verdict of a runner
// that stops commands at the timeout; runners that stop them much later or earlier still fail.

/** A timed session: warm-up answered at `startMs`, the timed one `delayMs` later (in a read of its own unless `oneRead`). */
function timedRun(opts: {
  seconds: number;
  startMs: number;
  delayMs?: number;
  lagMs: number;
  oneRead?: boolean;
}): SessionRun {
  return timedSessionRun({
    seconds: opts.seconds,
    warmUpAtMs: opts.startMs,
    lagMs: opts.lagMs,
    ...(opts.delayMs === undefined
      ? {}
      : { timed: { atMs: opts.startMs + opts.delayMs, read: opts.oneRead === true ? 1 : 2 } }),
  });
}

const judge = (seconds: number, startMs: number, delayMs: number | undefined, lagMs: number) => () =>
  expectTimedOut(
    timedRun({ seconds, startMs, lagMs, ...(delayMs === undefined ? {} : { delayMs }) }),
    TIMED_LINE,
    seconds,
    'sleep 30',
    true,
  );

test('an answer stamped late by the harness (within its measured lag) is never judged late or early', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 20 }),
      // when a conforming runner really answers: the timeout, then up to the grace and the slack
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.integer({ min: 0, max: MAX_EXCUSED_LAG_MS }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (seconds, where, lag, late1, late2) => {
        const window = timeoutWindow(seconds);
        const trueDelay = seconds * 1000 + where * (window.latestMs - seconds * 1000);
        // each of the two stamps late by up to the lag
        const measured = trueDelay + late2 * lag - late1 * lag;
        expect(judgeAnswerTime(measured, lag, window).kind).toBe('in-time');
      },
    ),
  );
});

test("the runner's start-up is not counted: a slow start passes the 1 s timeout with the grace used up", () => {
  // Before the warm-up line, a 3.5 s start made this answer 6.7 s after the spawn: late.
  expect(judge(1, 3500, 1000 + 2000 + 200, 0)).not.toThrow();
  expect(judge(2, 3500, 2000 + 300, 1200)).not.toThrow();
});

test('a runner that answers far past the timeout still fails, whatever lag the harness may excuse', () => {
  const seconds = 2;
  const late = latestAnswerMs(seconds) + MAX_EXCUSED_LAG_MS + 1;
  for (const lag of [0, 500, MAX_EXCUSED_LAG_MS]) {
    expect(judge(seconds, 300, late, lag)).toThrow(CheckFailure);
  }
  // Without the excused lag a runner late by 1 s fails as before.
  expect(judge(seconds, 300, latestAnswerMs(seconds) + 1000, 0)).toThrow(/later than the timeout/);
  // A runner that never stops the command gives no answer: a failure, lag or not.
  expect(judge(seconds, 300, undefined, 0)).toThrow(CheckFailure);
  expect(judge(seconds, 300, undefined, 60_000)).toThrow(CheckFailure);
});

test('a runner that stops at 10 s instead of the 20 s default fails, whatever lag the harness may excuse', () => {
  for (const lag of [0, 2000, MAX_EXCUSED_LAG_MS]) {
    expect(judge(DEFAULT_TIMEOUT_S, 400, 10_000, lag)).toThrow(/before its timeout/);
  }
});

test('past the lag it may excuse, a late answer is not judged: neither failed nor passed', () => {
  const seconds = 2;
  const late = latestAnswerMs(seconds) + MAX_EXCUSED_LAG_MS + 1;
  expect(judge(seconds, 300, late, MAX_EXCUSED_LAG_MS + 1)).toThrow(NotExercised);
  expect(judgeAnswerTime(late, MAX_EXCUSED_LAG_MS + 1, timeoutWindow(seconds)).kind).toBe('unjudged');
  // In time is in time, however busy the harness was.
  expect(judgeAnswerTime(2500, 60_000, timeoutWindow(seconds)).kind).toBe('in-time');
});

test('answers closer than the timeout count as written together when they came in one read, or in two reads closer than the harness lateness explains', () => {
  const minGap = 900;
  const run = (delayMs: number, lagMs: number, oneRead = false) =>
    timedRun({ seconds: 1, startMs: 400, delayMs, lagMs, oneRead });
  // A buffered runner: both answers in the pipe together, however they were read.
  expect(bunchedAnswers(run(3, 0, true), TIMED_LINE, minGap)).toMatch(/one read of stdout, 3 ms apart/);
  expect(bunchedAnswers(run(700, 2000, true), TIMED_LINE, minGap)).toMatch(/one read/);
  // Two writes at exit, read apart: closer than any lateness the harness had.
  expect(bunchedAnswers(run(1, 0), TIMED_LINE, minGap)).toMatch(
    /1 ms apart, closer than the harness's own lateness \(250 ms\)/,
  );
  expect(bunchedAnswers(run(300, 400), TIMED_LINE, minGap)).toMatch(/lateness \(400 ms\)/);
  // However much the harness lagged, answers 20 ms apart are not a prompt runner read late.
  expect(bunchedAnswers(run(20, 2000), TIMED_LINE, minGap)).toMatch(/lateness \(500 ms\)/);
  // A prompt runner whose warm-up answer the harness read late (measured in CI: 843 ms).
  expect(bunchedAnswers(run(843, 0), TIMED_LINE, minGap)).toBeUndefined();
  expect(bunchedAnswers(run(minGap - UNMEASURED_READ_LAG_MS, 0), TIMED_LINE, minGap)).toBeUndefined();
  expect(bunchedAnswers(run(500, 400), TIMED_LINE, minGap)).toBeUndefined();
  // Not close at all.
  expect(bunchedAnswers(run(1000, 0, true), TIMED_LINE, minGap)).toBeUndefined();
  expect(
    bunchedAnswers(timedRun({ seconds: 1, startMs: 400, lagMs: 0 }), TIMED_LINE, minGap),
  ).toBeUndefined();
});

test('the lag probe sees the harness blocked (a lower bound only: a busy machine makes it larger)', async () => {
  const probe = startLoopLagProbe();
  await new Promise((resolve) => setTimeout(resolve, 30));
  const until = performance.now() + 200;
  while (performance.now() < until) {
    // the harness busy: no timer can run
  }
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(probe.stop()).toBeGreaterThanOrEqual(150);
});
