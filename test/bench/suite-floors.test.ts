import { describe, expect, test } from 'vitest';
import { floorOf, floorRow, jobsRow } from '../../src/bench/suite-floors.js';
import type { SuiteResult } from '../../src/harness/results.js';

function result(
  suite: string,
  durationMs: number,
  jobs: number,
  starts?: SuiteResult['targetStarts'],
): SuiteResult {
  return {
    suite,
    target: 't',
    seed: 1,
    summary: { passed: 1, failed: 0, warned: 0, skipped: 0 },
    checks: [],
    startedAt: '2026-11-24T00:00:00.000Z',
    durationMs,
    wirecheck: '0.1.0',
    jobs,
    ...(starts === undefined ? {} : { targetStarts: starts }),
  };
}

describe('suite floors', () => {
  test('floor = starts x bare start / jobs + the wait the checks prescribe; the row reads wall against it', () => {
    const run = result('messages-client', 30_000, 2, { what: 'client', count: 100, bareStartMs: 300 });
    const floor = floorOf(run);
    expect(floor?.floorMs).toBe((100 * 300) / 2 + 2000);
    const row = floorRow(run, floor!, undefined);
    expect(row.value).toBe(30_000);
    expect(row.baseline).toBe(17_000);
    expect(row.ratio).toBeCloseTo(17_000 / 30_000, 3);
    expect(row.goal).toBeCloseTo(1 / 1.5, 3);
    expect(row.ratio >= row.goal).toBe(false);
    expect(row.note).toContain('100 client starts x 300 ms / 2 jobs + 2 s');
    expect(row.note).toContain('wall/floor 1.76');
  });

  test('no floor without target starts or a timed bare start', () => {
    expect(floorOf(result('messages-service', 500, 1))).toBeUndefined();
    expect(floorOf(result('agent', 500, 2, { what: 'agent', count: 10 }))).toBeUndefined();
  });

  test('the jobs row is a context row: the speed-up of the default over --jobs 1', () => {
    const row = jobsRow(result('runner', 40_000, 1), result('runner', 25_000, 2), 'load 1.0');
    expect(row.goal).toBe(0);
    expect(row.ratio).toBe(1.6);
    expect(row.name).toContain('2 jobs vs --jobs 1');
  });
});
