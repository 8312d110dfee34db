import { toolUse } from './lines.js';
import type { SessionRun } from './session.js';

/**
 * The most harness lateness a timing verdict excuses. Past it the harness was too busy to
 * time anything: a late or early answer is then not judged (not exercised), never failed.
 */
export const MAX_EXCUSED_LAG_MS = 5000;

/**
 * A quick command first in every timed session: the runner's start-up (an interpreter, a
 * sandbox, a machine that is busy) is over once it is answered, so the timed command is
 * measured from that answer instead of from the spawn.
 */
export function warmUpLine() {
  return toolUse('true');
}

/** When an answer may arrive, in ms after the previous answer (or the spawn, for the first line). */
export interface AnswerWindow {
  readonly earliestMs: number;
  readonly latestMs: number;
}

export type AnswerTiming =
  | { readonly kind: 'in-time'; readonly delayMs: number; readonly excusedMs: number }
  | { readonly kind: 'late' | 'early'; readonly delayMs: number; readonly excusedMs: number }
  /** Outside the window, but the harness itself lagged more than it may excuse. */
  | { readonly kind: 'unjudged'; readonly delayMs: number; readonly lagMs: number };

/**
 * Judges when an answer arrived. Both arrival times the delay is taken from were stamped by
 * the harness, each late by at most its measured lag, so the true delay lies within the lag
 * of the measured one: only an answer outside the window by more than that lag is late or
 * early. The lag is excused up to MAX_EXCUSED_LAG_MS; a larger lag leaves the answer unjudged.
 */
export function judgeAnswerTime(delayMs: number, harnessLagMs: number, window: AnswerWindow): AnswerTiming {
  const excusedMs = Math.min(Math.max(0, harnessLagMs), MAX_EXCUSED_LAG_MS);
  const outside =
    delayMs > window.latestMs + excusedMs
      ? 'late'
      : delayMs < window.earliestMs - excusedMs
        ? 'early'
        : undefined;
  if (outside === undefined) return { kind: 'in-time', delayMs, excusedMs };
  if (harnessLagMs > MAX_EXCUSED_LAG_MS) return { kind: 'unjudged', delayMs, lagMs: harnessLagMs };
  return { kind: outside, delayMs, excusedMs };
}

/** ms between the previous answer (or the spawn) and the answer to line `index`. */
export function answerDelayMs(run: SessionRun, index: number): number {
  const at = run.outputs[index]?.atMs ?? Number.POSITIVE_INFINITY;
  const before = index === 0 ? 0 : (run.outputs[index - 1]?.atMs ?? 0);
  return at - before;
}

/**
 * judgeAnswerTime for the answer to line `index` of a session. Late is measured from the
 * previous answer (the runner's start-up is over by then); early from the spawn, when every
 * line was written: no command started before it, whereas a runner that writes its answers
 * late (a buffered stdout, as Python's print to a pipe) brings the previous answer close to
 * this one without stopping any command early. `delayMs` of an early answer is from the spawn.
 */
export function answerTiming(run: SessionRun, index: number, window: AnswerWindow): AnswerTiming {
  const late = judgeAnswerTime(answerDelayMs(run, index), run.harnessLagMs, {
    earliestMs: Number.NEGATIVE_INFINITY,
    latestMs: window.latestMs,
  });
  if (late.kind !== 'in-time') return late;
  const sinceStart = run.outputs[index]?.atMs ?? Number.POSITIVE_INFINITY;
  const early = judgeAnswerTime(sinceStart, run.harnessLagMs, {
    earliestMs: window.earliestMs,
    latestMs: Number.POSITIVE_INFINITY,
  });
  return early.kind === 'in-time' ? late : early;
}

/**
 * How late the harness may have read an answer without its loop-lag probe noticing (the
 * machine busy between two samples, the pipe read after other work): an answer read apart
 * from the one before it, and short of the gap only by this much, was not written with it.
 */
export const UNMEASURED_READ_LAG_MS = 250;
/**
 * The most lateness that may explain two answers read apart coming too close: past it, a run
 * whose loop lagged a second would take a runner's held answers written 20 ms apart at its
 * exit for a prompt runner read late, and pass what their arrival cannot show.
 */
export const MAX_EXCUSED_READ_LAG_MS = 500;

/**
 * Why the answers to lines `index - 1` and `index` count as written together, or undefined
 * when they were written apart. They came closer than `minGapMs`, the least time between them
 * of a runner that writes each answer when its command ends, and either in one read of stdout
 * (in the pipe together: held back and written together, as by a buffered stdout, or both
 * read late), or in two reads yet closer than the harness's own lateness explains. Then their
 * arrival says nothing of when either command ended. Two reads short of the gap by no more
 * than that lateness are a prompt runner whose first answer the harness read late.
 */
export function bunchedAnswers(run: SessionRun, index: number, minGapMs: number): string | undefined {
  const now = run.outputs[index];
  const before = run.outputs[index - 1];
  if (now === undefined || before === undefined) return undefined;
  const gap = Math.round(now.atMs - before.atMs);
  if (gap >= minGapMs) return undefined;
  if (now.read === before.read) return `both came in one read of stdout, ${gap} ms apart`;
  const lateness = Math.min(Math.max(run.harnessLagMs, UNMEASURED_READ_LAG_MS), MAX_EXCUSED_READ_LAG_MS);
  if (gap + lateness >= minGapMs) return undefined;
  return `they came ${gap} ms apart, closer than the harness's own lateness (${Math.round(lateness)} ms) explains`;
}

/** "(the harness lagged up to 120 ms, excused)" for messages; empty when nothing was excused. */
export function excusedNote(timing: AnswerTiming): string {
  return timing.kind !== 'unjudged' && timing.excusedMs >= 1
    ? ` (${Math.round(timing.excusedMs)} ms of the harness's own lateness excused)`
    : '';
}
