import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runInterleaved } from '../../src/bench/interleave.js';
import { BenchRow } from '../../src/bench/rows.js';
import { QUICK_RUNNER_SIZES, runRunnerBench } from '../../src/bench/runner-bench.js';
import {
  GROWTH_FLOOR_MIB,
  MEMORY_BUDGET_MIB,
  runMemoryChild,
  sizeLabel,
} from '../../src/bench/runner-memory.js';
import { OWN_WORK_GOAL, RATE_GOALS, runnerRateBench } from '../../src/bench/runner-rate.js';
import { ISOLATION_LEVELS } from '../../src/runner/index.js';

const ROW_KEYS = ['baseline', 'goal', 'name', 'ratio', 'unit', 'value'];

function expectRow(row: unknown): asserts row is BenchRow {
  expect(Object.keys(row as object).sort()).toEqual(ROW_KEYS);
  const parsed = BenchRow.parse(row);
  for (const key of ['value', 'baseline', 'ratio', 'goal'] as const) {
    expect(Number.isFinite(parsed[key]), `${parsed.name}: ${key}`).toBe(true);
  }
  // A row must survive the report file: JSON has no Infinity or NaN.
  expect(BenchRow.parse(JSON.parse(JSON.stringify(row)))).toEqual(row);
}

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'wirecheck-bench-runner-test-'));
  // As root the runner drops to uid 65534, which must get through (mkdtemp makes 0700).
  await chmod(base, 0o755);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('runner rate rows', () => {
  test.each(ISOLATION_LEVELS)(
    'isolation %s: three commands/s rows against bare spawns and its own command line',
    async (level) => {
      const bench = await runnerRateBench(level, join(base, level), 2);
      if ('skipped' in bench) {
        // Only a sandbox this machine cannot build may be skipped (CI builds both as root).
        expect(level).not.toBe('none');
        expect(bench.skipped).toMatch(/no isolation level works here/);
        return;
      }
      try {
        const samples = await runInterleaved(bench.comparison.variants, { rounds: 1, warmupRounds: 0 });
        const rows = bench.comparison.rows(samples);
        for (const row of rows) expectRow(row);
        expect(rows.map((r) => r.name)).toEqual([
          `runner/bare spawn (detached), 2 x true in sequence, isolation ${level}`,
          `runner/bare spawn (not detached), 2 x true in sequence, isolation ${level}`,
          `runner/its command line spawned bare, 2 x true in sequence, isolation ${level}`,
        ]);
        expect(rows.map((r) => r.unit)).toEqual(['commands/s', 'commands/s', 'commands/s']);
        expect(rows.map((r) => r.goal)).toEqual([RATE_GOALS[level], RATE_GOALS[level], OWN_WORK_GOAL]);
        for (const row of rows) expect(row.value).toBeGreaterThan(0);
        expect(bench.summary(samples)).toMatch(
          new RegExp(
            `^isolation ${level}: runner [\\d.]+ ms per command; bare spawn [\\d.]+ ms detached, [\\d.]+ ms not detached; its command line spawned bare [\\d.]+ ms$`,
          ),
        );
      } finally {
        await bench.close();
      }
    },
  );

  test('a level that cannot start is skipped with the reason, and nothing is measured', async () => {
    // The runner refuses a working directory inside a system directory before probing anything.
    const bench = await runnerRateBench('none', '/etc/wirecheck-bench-never', 2);
    expect(bench).toEqual({ skipped: expect.stringMatching(/cannot be inside \/etc/) });
  });

  test('every level has a goal below 1 and the sandboxes expect less than no isolation', () => {
    for (const level of ISOLATION_LEVELS) expect(RATE_GOALS[level]).toBeLessThan(1);
    expect(RATE_GOALS.bwrap).toBeLessThan(RATE_GOALS.none);
    expect(RATE_GOALS['util-linux']).toBeLessThan(RATE_GOALS.bwrap);
  });
});

describe('runner memory rows', () => {
  test('output sizes are named in binary units', () => {
    expect(sizeLabel(1024 ** 3)).toBe('1 GiB');
    expect(sizeLabel(10 * 1024 ** 2)).toBe('10 MiB');
    expect(sizeLabel(1000)).toBe('1000 bytes');
  });

  test('the child reports the peak growth of each command, the runner having read every byte', async () => {
    const bytes = 1024 * 1024;
    const config = { bytes, workdir: join(base, 'wd'), isolation: 'none' as const };
    const runner = await runMemoryChild({ ...config, mode: 'runner', commands: 2 });
    expect(runner.isolation).toBe('none');
    expect(runner.growthBytes).toHaveLength(2);
    expect(runner.rssBeforeBytes).toHaveLength(2);
    for (const rss of runner.rssBeforeBytes) expect(rss).toBeGreaterThan(0);
    const bare = await runMemoryChild({ ...config, mode: 'bare', commands: 1 });
    expect(bare.growthBytes).toHaveLength(1);
  });
});

describe('runRunnerBench --quick', () => {
  test('produces rate rows for each level that runs and the three memory rows, and says what it skipped', async () => {
    const lines: string[] = [];
    const rows = await runRunnerBench({
      sizes: QUICK_RUNNER_SIZES,
      rounds: 1,
      warmupRounds: 0,
      log: (l) => lines.push(l),
    });
    for (const row of rows) expectRow(row);
    const measured = ISOLATION_LEVELS.filter((level) =>
      lines.some((l) => l.startsWith('measured runner vs bare spawn') && l.includes(`isolation ${level} `)),
    );
    const skipped = ISOLATION_LEVELS.filter((level) =>
      lines.some((l) => l.startsWith(`skipped isolation ${level}: `)),
    );
    expect([...measured, ...skipped].sort()).toEqual([...ISOLATION_LEVELS].sort());
    expect(measured).toContain('none');
    const rateRows = rows.filter((r) => r.unit === 'commands/s');
    expect(rateRows).toHaveLength(3 * measured.length);
    for (const level of measured) {
      expect(rateRows.filter((r) => r.name.endsWith(`isolation ${level}`))).toHaveLength(3);
    }
    const memoryRows = rows.filter((r) => r.unit === 'MiB');
    expect(memoryRows.map((r) => r.name)).toEqual([
      `runner peak RSS growth vs ${MEMORY_BUDGET_MIB} MiB budget, first command printing 10 MiB`,
      `runner peak RSS growth vs ${MEMORY_BUDGET_MIB} MiB budget, second command printing 10 MiB`,
      'runner/bare node reader peak RSS growth, 10 MiB of stdout',
    ]);
    expect(memoryRows[0]!.baseline).toBe(MEMORY_BUDGET_MIB);
    expect(memoryRows[0]!.goal).toBe(1);
    for (const row of memoryRows) expect(row.value).toBeGreaterThanOrEqual(GROWTH_FLOOR_MIB);
    expect(lines.some((l) => /^ {2}peak RSS growth \((VmHWM|sampled); isolation /.test(l))).toBe(true);
  }, 60_000);
});
