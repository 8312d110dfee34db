import { describe, expect, test } from 'vitest';
import { runInterleaved } from '../../src/bench/interleave.js';
import { type BenchRow, comparisonRow, goalMet, mergeRows, targetRow } from '../../src/bench/rows.js';
import { median, pairedRatio } from '../../src/bench/stats.js';
import { formatTable } from '../../src/bench/table.js';

const row = (name: string, ratio: number, goal: number): BenchRow => ({
  name,
  value: ratio,
  unit: 'x',
  baseline: 1,
  ratio,
  goal,
});

describe('statistics', () => {
  test('the median of an odd count is the middle value, of an even count the mean of the two middle ones', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });

  test('a ratio pairs each value with the baseline of the same round', () => {
    // Every round the value is half the baseline, while the machine speeds up 10x: the
    // paired ratio sees 0.5, a ratio of medians would not.
    const baselines = [10, 100, 1000];
    const values = [5, 50, 500];
    expect(pairedRatio(values, baselines)).toBe(0.5);
    expect(pairedRatio([5, 50, 5000], [1000, 100, 10])).toBe(0.5);
    expect(() => pairedRatio([1], [1, 2])).toThrow(RangeError);
  });
});

describe('interleaving', () => {
  test('every variant runs once per round, the order rotates, warm-up rounds are discarded', async () => {
    const calls: string[] = [];
    let n = 0;
    const variant = (name: string) => ({
      name,
      run: async () => {
        calls.push(name);
        return ++n;
      },
    });
    const samples = await runInterleaved([variant('a'), variant('b'), variant('c')], {
      rounds: 2,
      warmupRounds: 1,
    });
    expect(calls).toEqual(['a', 'b', 'c', 'b', 'c', 'a', 'c', 'a', 'b']);
    expect(samples).toEqual({ a: [6, 8], b: [4, 9], c: [5, 7] });
  });

  test('variant names must be distinct', async () => {
    const v = { name: 'same', run: async () => 1 };
    await expect(runInterleaved([v, v], { rounds: 1, warmupRounds: 0 })).rejects.toThrow(/distinct/);
  });
});

describe('rows', () => {
  test('a comparison row holds the medians and the paired ratio; a target row compares with a constant', () => {
    const r = comparisonRow('c', 'frames/s', 0.9, [90, 200, 95], [100, 400, 100]);
    expect(r).toEqual({ name: 'c', value: 95, unit: 'frames/s', baseline: 100, ratio: 0.9, goal: 0.9 });
    expect(goalMet(r)).toBe(true);
    const t = targetRow('t', 'frames/s', 1, [800_000, 900_000, 700_000], 1_000_000);
    expect(t).toEqual({
      name: 't',
      value: 800_000,
      unit: 'frames/s',
      baseline: 1_000_000,
      ratio: 0.8,
      goal: 1,
    });
    expect(goalMet(t)).toBe(false);
  });

  test('merging replaces rows of the same name in place and appends new ones', () => {
    const merged = mergeRows([row('a', 1, 1), row('b', 1, 1)], [row('b', 2, 1), row('c', 3, 1)]);
    expect(merged.map((r) => [r.name, r.ratio])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  test('the table says which goals are met', () => {
    const lines = formatTable([row('fast', 1.5, 1), row('slow enough to miss', 0.42, 0.9)]);
    expect(lines[0]).toMatch(/^name +value +unit +baseline +ratio +goal +met\?$/);
    expect(lines[2]).toMatch(/^fast +1\.5 +x +1 +1\.50 +1 +yes$/);
    expect(lines[3]).toMatch(/^slow enough to miss +0\.42 +x +1 +0\.42 +0\.9 +NO$/);
  });
});
