import type { BashToolResult } from '../../protocol/bash/index.js';

/** Errors and Limits: 3 consecutive failing commands halt the agent. */
export const BREAKER_THRESHOLD = 3;

/**
 * What counts as a failing command for the circuit breaker. The spec says "3 consecutive
 * non-zero exits"; a timeout (exit -1) and a process that cannot be started (exit 1) are
 * non-zero exits by the spec's own numbers. A refused command has no exit code; the
 * reference counts it too, since `is_error` is the one signal a result carries and a
 * model that keeps sending refused commands needs an operator as much as one whose
 * commands keep failing. So: a result fails exactly when `is_error` is true.
 */
export function isFailure(result: BashToolResult): boolean {
  return result.is_error;
}

/** The breaker between commands: how many failed in a row, and whether that tripped it. */
export interface BreakerState {
  readonly consecutiveFailures: number;
  readonly tripped: boolean;
}

export const CLOSED_BREAKER: BreakerState = { consecutiveFailures: 0, tripped: false };

/**
 * The breaker after one more command, counted per command in execution order (several
 * tool_use blocks of one reply are several commands); a success resets the count. Once
 * tripped it stays tripped.
 */
export function afterCommand(
  state: BreakerState,
  failed: boolean,
  threshold = BREAKER_THRESHOLD,
): BreakerState {
  if (state.tripped) return state;
  const consecutiveFailures = failed ? state.consecutiveFailures + 1 : 0;
  return { consecutiveFailures, tripped: consecutiveFailures >= threshold };
}
