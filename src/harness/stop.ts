import { HARNESS_ERRORS } from './errors.js';
import type { RunStop } from './results.js';

/**
 * The reason a run's stop signal carries (`controller.abort(stop)`): a RunStop when the
 * harness stopped it; anything else (a plain `abort()` of a library user) reads as an
 * interrupt.
 */
export function stopOf(signal: AbortSignal): RunStop {
  const reason: unknown = signal.reason;
  if (isRunStop(reason)) return reason;
  return { kind: 'interrupted', message: 'the run was stopped' };
}

function isRunStop(value: unknown): value is RunStop {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.message === 'string' &&
    (v.kind === 'target-gone' ||
      v.kind === 'interrupted' ||
      v.kind === 'budget' ||
      v.kind === 'harness-error')
  );
}

/** The message of a check the run did not reach. */
export function notRunMessage(stop: RunStop): string {
  return `not run: ${stop.message}`;
}

/** A signal that stops a run (or a `serve`/`record` command) the way Ctrl-C does. */
export type InterruptSignal = NonNullable<RunStop['signal']>;

/** SIGHUP too: a closed terminal and some CI cancels send it, and its default action leaves no report. */
export const INTERRUPT_SIGNALS: readonly InterruptSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The stop of a run interrupted by a signal. */
export function interruptStop(signal: InterruptSignal): RunStop {
  return { kind: 'interrupted', signal, message: `interrupted by ${signal}` };
}

/** 128 + the signal's number, as a shell reports a death by it (1, 2 and 15 on every Unix). */
const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const satisfies Record<
  InterruptSignal,
  number
>;

/** Exit status of a run stopped by a signal, as a shell would report the signal's own death. */
export function exitCodeOfSignal(signal: InterruptSignal): 129 | 130 | 143 {
  return SIGNAL_EXIT_CODES[signal];
}

/**
 * The exit status a stop gives a run (or the merge of its shards), if it decides one: 2 for a
 * harness error, 130/143/129 for an interrupt; none for a stop whose check failed already.
 * An interrupt without a signal (a library user's AbortSignal) exits as SIGINT would: it
 * stopped the run on purpose just as Ctrl-C does, and its unjudged checks must not read as a pass.
 */
export function stopExitCode(stop: RunStop | undefined): number | undefined {
  if (stop === undefined) return undefined;
  if (stop.kind === 'harness-error') return HARNESS_ERRORS.WC_INTERNAL.exitCode;
  if (stop.kind !== 'interrupted') return undefined;
  return exitCodeOfSignal(stop.signal ?? 'SIGINT');
}
