import { describe, expect, test } from 'vitest';
import {
  afterCommand,
  type BreakerState,
  CLOSED_BREAKER,
  isFailure,
} from '../../../src/clients/agent/index.js';

function run(outcomes: readonly boolean[]): BreakerState[] {
  const states: BreakerState[] = [];
  let state = CLOSED_BREAKER;
  for (const failed of outcomes) {
    state = afterCommand(state, failed);
    states.push(state);
  }
  return states;
}

describe('circuit breaker (Errors: 3 consecutive non-zero exits)', () => {
  test('three consecutive failing commands trip it at the third', () => {
    expect(run([true, true, true]).map((s) => s.tripped)).toEqual([false, false, true]);
  });

  test('a success between failures resets the count', () => {
    const states = run([true, true, false, true, true]);
    expect(states.map((s) => s.consecutiveFailures)).toEqual([1, 2, 0, 1, 2]);
    expect(states.some((s) => s.tripped)).toBe(false);
  });

  test('once tripped it stays tripped, even after a success', () => {
    expect(run([true, true, true, false]).at(-1)).toEqual({ consecutiveFailures: 3, tripped: true });
  });

  test('the threshold is configurable', () => {
    expect(afterCommand({ consecutiveFailures: 1, tripped: false }, true, 2).tripped).toBe(true);
  });

  test('a failing command is a result with is_error true (non-zero exit, timeout, refusal, spawn failure)', () => {
    expect(isFailure({ type: 'tool_result', tool_use_id: 'a', content: 'x', is_error: true })).toBe(true);
    expect(isFailure({ type: 'tool_result', tool_use_id: 'a', content: 'x', is_error: false })).toBe(false);
  });
});
