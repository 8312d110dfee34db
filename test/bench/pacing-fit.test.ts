import { describe, expect, test } from 'vitest';
import { PACING_RATE_GOAL, pacedRateRow, scheduleFit } from '../../src/bench/pacing.js';
import { PACING_MEAN_MS } from '../../src/bench/peer-servers.js';
import { goalMet } from '../../src/bench/rows.js';

const plan = [0, 0.5, 1, 1.5, 2];
const NAME = 'mock paced frames/s vs schedule, test';

describe('the paced rate is scored by how close it comes to the schedule, both ways', () => {
  test('frames 10x faster than the schedule are as far off as 10x slower', () => {
    const fast = scheduleFit([0, 0.05, 0.1, 0.15, 0.2], plan);
    expect(fast.rate).toBeCloseTo(10, 10);
    expect(fast.closeness).toBeCloseTo(0.1, 10);
    const slow = scheduleFit([0, 5, 10, 15, 20], plan);
    expect(slow.rate).toBeCloseTo(0.1, 10);
    expect(slow.closeness).toBeCloseTo(0.1, 10);
  });

  test('every frame at once follows no schedule: no rate measured, closeness 0', () => {
    expect(scheduleFit([3, 3, 3, 3, 3], plan)).toMatchObject({ rate: 0, closeness: 0 });
    // A schedule that itself sends them at once is followed.
    expect(scheduleFit([3, 3, 3], [0, 0, 0])).toMatchObject({ closeness: 1 });
  });

  test('the row misses its goal for a server 10x too fast or all at once, and meets it within 5%', () => {
    const rounds = (arrivals: number[]) => {
      const fits = [1, 2, 3].map(() => scheduleFit(arrivals, plan));
      return { rate: fits.map((f) => f.rate), closeness: fits.map((f) => f.closeness) };
    };
    const fast = pacedRateRow(NAME, PACING_RATE_GOAL, rounds([0, 0.05, 0.1, 0.15, 0.2]));
    expect(fast.value).toBe(10 * (1000 / PACING_MEAN_MS));
    expect(fast.baseline).toBe(1000 / PACING_MEAN_MS);
    expect(fast.ratio).toBeCloseTo(0.1, 3);
    expect(goalMet(fast)).toBe(false);

    const atOnce = pacedRateRow(NAME, PACING_RATE_GOAL, rounds([1, 1, 1, 1, 1]));
    expect(atOnce.ratio).toBe(0);
    expect(goalMet(atOnce)).toBe(false);
    expect(atOnce.note).toBe('in 3 of 3 rounds every frame arrived at once (no rate measured, closeness 0)');
    expect(Number.isFinite(atOnce.value)).toBe(true);

    const close = pacedRateRow(NAME, PACING_RATE_GOAL, rounds([0, 0.51, 1.02, 1.53, 2.04]));
    expect(close.ratio).toBeCloseTo(2 / 2.04, 3);
    expect(goalMet(close)).toBe(true);
    expect(close.note).toBeUndefined();
  });
});
