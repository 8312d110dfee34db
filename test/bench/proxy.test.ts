import { describe, expect, test } from 'vitest';
import { QUICK_SIZES } from '../../src/bench/main.js';
import { PROXY_GOAL, runProxyBench } from '../../src/bench/proxy-bench.js';

describe('bench part recording: the recording proxy against talking to the mock directly', () => {
  test('one quick round gives one frames/s row aimed at 0.8 of the direct throughput', async () => {
    const rows = await runProxyBench({ sizes: QUICK_SIZES, rounds: 1, warmupRounds: 0, inlineServers: true });
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({
      name: 'recording proxy/direct to the mock, 300 text deltas, 64 frames per write',
      unit: 'frames/s',
      goal: PROXY_GOAL,
    });
    expect(PROXY_GOAL).toBe(0.8);
    expect(row!.value).toBeGreaterThan(0);
    expect(row!.baseline).toBeGreaterThan(0);
    expect(row!.ratio).toBeGreaterThan(0);
  }, 60_000);
});
