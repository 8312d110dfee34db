import { describe, expect, test } from 'vitest';
import { ALL_GOAL_MS, allGoalRow, allJobsRow } from '../../src/bench/all-bench.js';
import {
  floorOf,
  floorRow,
  jobsRow,
  longestPrescribedWait,
  prescribedWaitOf,
  serialPrescribedWaits,
  targetCpuRow,
  workRow,
} from '../../src/bench/suite-floors.js';
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
    const wait = longestPrescribedWait([
      { id: 'messages-client.a', prescribedWaitMs: 1000 },
      { id: 'messages-client.b', prescribedWaitMs: 2000 },
      { id: 'messages-client.c' },
    ]);
    expect(wait).toEqual({ ms: 2000, what: 'the longest wait a check prescribes: messages-client.b' });
    const floor = floorOf(run, wait);
    expect(floor?.floorMs).toBe((100 * 300) / 2 + 2000);
    const row = floorRow(run, floor!, undefined);
    expect(row.value).toBe(30_000);
    expect(row.baseline).toBe(17_000);
    expect(row.ratio).toBeCloseTo(17_000 / 30_000, 3);
    expect(row.goal).toBeCloseTo(1 / 1.5, 3);
    expect(row.ratio >= row.goal).toBe(false);
    expect(row.note).toContain(
      '100 client starts x 300 ms / 2 jobs + 2 s (the longest wait a check prescribes: messages-client.b)',
    );
    expect(row.note).toContain('wall/floor 1.76');
  });

  test("the target-CPU row reads wall against the target processes' CPU over the cores, with no goal", () => {
    const run = result('agent', 1400, 2, { what: 'agent', count: 10, bareStartMs: 110 });
    const row = targetCpuRow(
      run,
      { cpuMs: 2000, bareStarts: 3, bareCpuMs: 95, cores: 2 },
      'load average 0.10 after the run',
    );
    expect(row.name).toBe(
      "suite agent against its reference, quick tier: wall time vs its target processes' CPU / 2 cores",
    );
    expect(row.value).toBe(1400);
    expect(row.baseline).toBe(1000);
    expect(row.ratio).toBeCloseTo(1000 / 1400, 3);
    expect(row.goal).toBe(0);
    expect(row.note).toContain(
      'target CPU 2000 ms or more (10 agent runs and the processes they waited for, less 3 bare starts x 95 ms; a process killed with its parent is not in it)',
    );
    expect(row.note).toContain('wall/(CPU/cores) at most 1.40');
    expect(row.note).toContain('load average 0.10 after the run');
  });

  test('no floor without target starts or a timed bare start', () => {
    expect(longestPrescribedWait([{ id: 'x' }])).toBeUndefined();
    expect(floorOf(result('messages-service', 500, 1), undefined)).toBeUndefined();
    expect(floorOf(result('agent', 500, 2, { what: 'agent', count: 10 }), undefined)).toBeUndefined();
  });

  test('the jobs row is a context row: the speed-up of the default over --jobs 1', () => {
    const row = jobsRow(result('runner', 40_000, 1), result('runner', 25_000, 2), 'load 1.0');
    expect(row.goal).toBe(0);
    expect(row.ratio).toBe(1.6);
    expect(row.name).toContain('2 jobs vs --jobs 1');
  });
});

describe('a suite without a floor, and wirecheck all as a whole', () => {
  test("the work row: wall time against the checks' own time over the jobs, a context row saying why there is no floor", () => {
    const run = {
      ...result('messages-service', 1000, 2),
      checks: [300, 500, 400].map((durationMs, i) => ({
        id: `messages-service.c${i}`,
        suite: 'messages-service',
        clause: 'c',
        description: 'd',
        level: 'must' as const,
        tier: 'quick' as const,
        status: 'pass' as const,
        message: '',
        durationMs,
      })),
    };
    expect(floorOf(run, undefined)).toBeUndefined();
    const row = workRow(run, '', 'load average 1.00 after the run');
    expect(row.name).toBe(
      "suite messages-service against its reference, quick tier: wall time vs its checks' own time / 2 jobs",
    );
    expect(row.value).toBe(1000);
    expect(row.baseline).toBe(600);
    expect(row.ratio).toBe(0.6);
    expect(row.goal).toBe(0);
    expect(row.note).toMatch(/^no floor: the suite starts no process .*; load average 1\.00 after the run$/);
    expect(workRow(result('tool-server', 10, 1), ' (stdio)', undefined).name).toContain('reference (stdio)');
  });

  test('all: wall against the 60 s goal (met at ratio 1), and the default jobs against --jobs 1 as context', () => {
    const run = (jobs: number, wallMs: number) => ({
      jobs,
      wallMs,
      code: 0,
      totals: '345 passed, 0 failed, 0 warned, 91 skipped',
      loadBefore: 0.5,
      loadAfter: 1.5,
    });
    const goal = allGoalRow(run(2, 48_000), ', every suite');
    expect(goal).toMatchObject({ value: 48_000, baseline: ALL_GOAL_MS, ratio: 1.25, goal: 1, unit: 'ms' });
    expect(goal.name).toBe('wirecheck all, every suite, 2 jobs: wall time vs 60 s');
    expect(goal.note).toBe(
      'load average 0.50 before, 1.50 after; 345 passed, 0 failed, 0 warned, 91 skipped',
    );
    // A smoke run (part of the checks) is aimed at nothing.
    expect(allGoalRow(run(2, 20_000), ' (smoke)', true).goal).toBe(0);
    const jobs = allJobsRow(run(2, 48_000), run(1, 72_000), ', every suite');
    expect(jobs).toMatchObject({ value: 48_000, baseline: 72_000, ratio: 1.5, goal: 0 });
  });
});

describe('a suite that starts processes ahead of one-at-a-time checks', () => {
  test('the floor divides its starts by the starts it let overlap, not by its one job', () => {
    const run = result('tool-server', 3000, 1, { what: 'server', count: 12, bareStartMs: 200, atOnce: 2 });
    const floor = floorOf(run, undefined);
    expect(floor?.jobs).toBe(2);
    expect(floor?.floorMs).toBe((12 * 200) / 2);
    const row = floorRow(run, floor!, undefined, ' (stdio)');
    expect(row.name).toBe('suite tool-server against its reference (stdio), quick tier: wall time vs floor');
    expect(row.note).toContain('12 server starts x 200 ms / 2 jobs');
    // Without atOnce, the run's jobs divide.
    expect(
      floorOf(result('tool-server', 3000, 1, { what: 'server', count: 12, bareStartMs: 200 }), undefined)
        ?.jobs,
    ).toBe(1);
  });

  test('its checks run one at a time, so the waits of the checks that ran add up', () => {
    const checks = [
      { id: 'tool-server.a', prescribedWaitMs: 300 },
      { id: 'tool-server.b', prescribedWaitMs: 300 },
      { id: 'tool-server.c', prescribedWaitMs: 500 },
      { id: 'tool-server.d' },
    ];
    const ran = [
      { id: 'tool-server.a', status: 'pass' },
      { id: 'tool-server.b', status: 'fail' },
      { id: 'tool-server.c', status: 'skip' },
      { id: 'tool-server.d', status: 'pass' },
    ];
    const wait = serialPrescribedWaits(checks, ran);
    expect(wait).toEqual({
      ms: 600,
      what: 'the waits its checks prescribe, one check at a time: tool-server.a, tool-server.b',
    });
    expect(serialPrescribedWaits(checks, [{ id: 'tool-server.d', status: 'pass' }])).toBeUndefined();
    // A suite's own way of running its checks picks the rule: one at a time adds up, side by side takes the longest.
    expect(prescribedWaitOf({ checks }, ran)).toEqual(wait);
    expect(prescribedWaitOf({ concurrent: true, checks }, ran)).toEqual({
      ms: 500,
      what: 'the longest wait a check prescribes: tool-server.c',
    });
    const run = result('tool-server', 3000, 1, { what: 'server', count: 12, bareStartMs: 200, atOnce: 2 });
    expect(floorOf(run, wait)?.floorMs).toBe((12 * 200) / 2 + 600);
  });

  test('its --jobs 1 row names the jobs it had', () => {
    const many = result('tool-server', 2000, 1, { what: 'server', count: 12, atOnce: 2 });
    const row = jobsRow(result('tool-server', 3000, 1), many, undefined, ' (stdio)');
    expect(row.name).toBe(
      'suite tool-server against its reference (stdio), quick tier: wall time with 2 jobs vs --jobs 1',
    );
    expect(row.ratio).toBe(1.5);
  });
});
