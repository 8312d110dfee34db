import { describe, expect, test } from 'vitest';
import {
  FLOOR_RATIO_GOAL,
  floorOf,
  prescribedWaitOf,
  whyNotMeasured,
  workRow,
} from '../../src/bench/suite-floors.js';
import type { SuiteResult } from '../../src/harness/results.js';
import { DEFAULT_TIMEOUT_S } from '../../src/protocol/bash/index.js';
import { createRunnerSuite } from '../../src/suites/runner/suite.js';

function result(overrides: Partial<SuiteResult>): SuiteResult {
  return {
    suite: 'runner',
    target: 't',
    seed: 14,
    summary: { passed: 20, failed: 0, warned: 0, skipped: 15 },
    checks: [],
    startedAt: '2026-12-05T00:00:00.000Z',
    durationMs: 4000,
    wirecheck: '0.1.0',
    jobs: 2,
    ...overrides,
  };
}

const STOPPED = { kind: 'budget', message: 'the suite used up its time budget of 60 s' } as const;

describe('a suite run stopped before its last check is no measurement', () => {
  test('the bench names why: a stop, as a failed check', () => {
    expect(whyNotMeasured(result({ stopped: STOPPED }))).toBe(
      'suite runner against its reference: expected a run to its last check, got one stopped (budget): the suite used up its time budget of 60 s',
    );
    expect(
      whyNotMeasured(result({ summary: { passed: 1, failed: 2, warned: 0, skipped: 0 } }), ' (stdio)'),
    ).toBe('suite runner against its reference (stdio): expected no failed check, got 2 failed');
    expect(whyNotMeasured(result({}))).toBeUndefined();
  });

  test('a stopped run has no floor, even with a bare start', () => {
    const stopped = result({
      stopped: STOPPED,
      targetStarts: { what: 'runner', count: 12, bareStartMs: 200 },
    });
    expect(floorOf(stopped, undefined)).toBeUndefined();
    expect(floorOf({ ...stopped, stopped: undefined }, undefined)?.floorMs).toBe((12 * 200) / 2);
  });

  test('a suite that starts processes but got no floor gets a missed row saying why, never "starts no target process"', () => {
    // What run-suite returns for a stopped run: starts counted, no bare start timed.
    const stopped = result({ stopped: STOPPED, targetStarts: { what: 'runner', count: 12 } });
    const row = workRow(stopped, '', 'load average 1.00 after the run');
    expect(row.name).toBe('suite runner against its reference, quick tier: wall time vs floor');
    expect(row.goal).toBeCloseTo(1 / FLOOR_RATIO_GOAL, 3);
    expect(row.ratio).toBe(0);
    expect(row.ratio >= row.goal).toBe(false);
    expect(row.note).toBe(
      'no floor measured: the run stopped before its last check (budget), so it timed no bare start; load average 1.00 after the run',
    );
    expect(row.note).not.toMatch(/starts no target process/);

    const untimed = workRow(result({ targetStarts: { what: 'runner', count: 12 } }), '', undefined);
    expect(untimed.note).toMatch(/^no floor measured: the bare runner start could not be timed/);
    expect(untimed.goal).toBeGreaterThan(0);
    // The suite has a bare start for the target, but the run counted no start.
    const none = workRow(result({ suite: 'agent' }), '', undefined, true);
    expect(none.note).toBe('no floor measured: the run counted no target start');
    expect(none.goal).toBeGreaterThan(0);
  });
});

describe("the runner suite's floor", () => {
  test('waits its default timeout, not the kill grace a runner may skip', () => {
    const suite = createRunnerSuite();
    const wait = prescribedWaitOf(suite, []);
    expect(wait).toEqual({
      ms: DEFAULT_TIMEOUT_S * 1000,
      what: 'the longest wait a check prescribes: runner.timeout.default-20s',
    });
  });
});
