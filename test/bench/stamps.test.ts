import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkedOutCommit } from '../../src/bench/commit.js';
import { summary } from '../../src/bench/main.js';
import { BenchReport, type BenchRow, mergeRows, stampRows } from '../../src/bench/rows.js';

const row = (name: string, ratio: number, goal = 1): BenchRow => ({
  name,
  value: ratio,
  unit: 'x',
  baseline: 1,
  ratio,
  goal,
});

describe('rows say when they were measured', () => {
  test("a merged report tells today's rows from the rows an earlier run left", () => {
    const yesterday = { measuredAt: '2026-12-04T10:00:00.000Z', commit: 'a'.repeat(40) };
    const today = { measuredAt: '2026-12-05T10:00:00.000Z', commit: `${'b'.repeat(40)}-dirty` };
    const existing = stampRows([row('suites part', 1.2), row('runner part', 1.1)], yesterday);
    const merged = mergeRows(existing, stampRows([row('runner part', 0.9)], today));
    expect(merged).toEqual([
      { ...row('suites part', 1.2), ...yesterday },
      { ...row('runner part', 0.9), ...today },
    ]);
    // The stamps survive a write and a read of the report.
    expect(BenchReport.parse(JSON.parse(JSON.stringify(merged)))).toEqual(merged);
    // Without a commit, the time alone.
    expect(stampRows([row('x', 1)], { measuredAt: today.measuredAt })).toEqual([
      { ...row('x', 1), measuredAt: today.measuredAt },
    ]);
  });

  test('the commit is read from the checkout, and absent outside one', async () => {
    expect(checkedOutCommit()).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-bench-commit-'));
    try {
      expect(checkedOutCommit(dir)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the summary names the parts that crashed, whose rows are missing', () => {
    expect(summary([row('a', 1)], ['suites'])).toEqual([
      'all 1 goals met',
      'parts that crashed, no rows: suites',
    ]);
    expect(summary([row('a', 1), row('b', 0.5)], [])).toEqual([
      'GOALS MISSED: 1 of 2',
      '  b: ratio 0.50, goal 1',
    ]);
  });
});
