import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runSuiteBench } from '../../src/bench/suite-bench.js';
import {
  NOT_KEPT_WARM,
  startWarmReference,
  verdictDifferences,
  WARM_SPEED_UP_GOAL,
  warmRow,
  whyNotWarm,
} from '../../src/bench/warm-bench.js';
import type { SuiteResult } from '../../src/harness/results.js';
import { buildDist, distIsFresh } from '../global-setup.js';

function run(
  durationMs: number,
  statuses: Record<string, SuiteResult['checks'][number]['status']>,
): SuiteResult {
  return {
    suite: 'messages-client',
    target: 't',
    seed: 14,
    summary: { passed: 0, failed: 0, warned: 0, skipped: 0 },
    checks: Object.entries(statuses).map(([id, status]) => ({
      id,
      suite: 'messages-client',
      clause: 'c',
      description: id,
      level: 'must' as const,
      status,
      durationMs: 1,
      message: '',
    })),
    startedAt: '2026-12-01T00:00:00.000Z',
    durationMs,
    wirecheck: '0.1.0',
    jobs: 2,
  };
}

describe('the warm rows of the bench', () => {
  test('every check whose status differs between the cold and the warm run is named, both ways', () => {
    const cold = run(10_000, { a: 'pass', b: 'warn', c: 'skip', d: 'pass' });
    expect(verdictDifferences(cold, run(3_000, { a: 'pass', b: 'warn', c: 'skip', d: 'pass' }))).toEqual([]);
    expect(verdictDifferences(cold, run(3_000, { a: 'fail', b: 'warn', c: 'skip', e: 'pass' }))).toEqual([
      'a: cold pass, warm fail',
      'd: cold pass, warm not run',
      'e: cold not run, warm pass',
    ]);
  });

  test('the row reads cold over warm against the goal and counts the checks compared', () => {
    const row = warmRow(run(12_000, { a: 'pass', b: 'pass' }), run(3_000, { a: 'pass', b: 'pass' }), 'load');
    expect(row).toEqual({
      name: 'suite messages-client against its reference, quick tier: wall time kept warm (serve warm) vs cold',
      value: 3000,
      unit: 'ms',
      baseline: 12_000,
      ratio: 4,
      goal: WARM_SPEED_UP_GOAL,
      note: 'the same status for each of the 2 checks; load',
    });
  });

  test('only the clients serve warm keeps have a warm run, and only with perl', () => {
    expect(whyNotWarm('messages-client', '/usr/bin/perl')).toBeUndefined();
    expect(whyNotWarm('tool-client', '/usr/bin/perl')).toBeUndefined();
    expect(whyNotWarm('agent', '/usr/bin/perl')).toBe(NOT_KEPT_WARM);
    expect(whyNotWarm('runner', '/usr/bin/perl')).toBe(NOT_KEPT_WARM);
    expect(whyNotWarm('messages-client', undefined)).toMatch(/no perl/);
  });

  test('the warm reference keeps the rest of the cold target, and closing it ends the server and removes its socket', async () => {
    if (!distIsFresh()) buildDist();
    const cold = { client: 'node cold.js', transports: ['stdio', 'sse'] };
    const warm = await startWarmReference('tool-client', cold);
    const target = warm.target as typeof cold;
    const socket = warm.relay.split(' ').at(-1)!.replace(/'/g, '');
    try {
      expect(target.transports).toEqual(['stdio', 'sse']);
      expect(target.client).toBe(warm.relay);
      expect(warm.relay).toMatch(/^perl \S+warm-relay\.pl \S+warm\.sock'?$/);
      expect(existsSync(socket)).toBe(true);
    } finally {
      await warm.close();
    }
    expect(existsSync(dirname(socket))).toBe(false);
    await expect(startWarmReference('agent', cold)).rejects.toThrow(/does not keep the reference of agent/);
  }, 30_000);

  test('the suites part runs messages-client again kept warm: the same verdicts, a cold/warm row and a floor row of the relay', async () => {
    if (!distIsFresh()) buildDist();
    const lines: string[] = [];
    const rows = await runSuiteBench({ quick: true, suites: ['messages-client'], log: (l) => lines.push(l) });
    const cold = rows.find(
      (r) => r.name === 'suite messages-client against its reference, quick tier: wall time vs floor',
    );
    const speedUp = rows.find((r) => r.name.endsWith('wall time kept warm (serve warm) vs cold'));
    const warmFloor = rows.find(
      (r) =>
        r.name ===
        'suite messages-client against its reference kept warm (serve warm), quick tier: wall time vs floor',
    );
    expect(cold).toBeDefined();
    expect(speedUp?.baseline).toBe(cold?.value);
    expect(speedUp?.value).toBe(warmFloor?.value);
    expect(speedUp?.note).toMatch(/^the same status for each of the \d+ checks/);
    expect(warmFloor?.goal).toBeCloseTo(1 / 1.5, 3);
    expect(warmFloor?.note).toMatch(/^floor = \d+ client starts x \d+ ms \/ \d+ jobs? \+ 2 s/);
    expect(lines.some((l) => /^suite messages-client kept warm \(serve warm\): .* 0 failed/.test(l))).toBe(
      true,
    );
  }, 120_000);
});
