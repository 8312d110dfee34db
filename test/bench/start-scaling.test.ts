import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { measureStartScaling, startScalingRow } from '../../src/bench/start-scaling.js';
import type { BareStart } from '../../src/harness/bare-start.js';

function bare(name: string, done?: () => void): BareStart {
  return { what: name, command: 'true', env: {}, ...(done && { done }) };
}

describe('bare starts one after another and jobs at a time', () => {
  test('the starts at once overlap, each lane with a start of its own, every lane ended', async () => {
    let made = 0;
    const ended: string[] = [];
    const used = new Set<string>();
    let running = 0;
    let most = 0;
    let calls = 0;
    const scaling = await measureStartScaling(
      () => {
        const name = `lane ${++made}`;
        return bare(name, () => ended.push(name));
      },
      3,
      6,
      2,
      async (start) => {
        calls++;
        used.add(start.what);
        most = Math.max(most, ++running);
        await sleep(30);
        running--;
        return 30;
      },
    );
    expect(made).toBe(3);
    expect([...used].sort()).toEqual(['lane 1', 'lane 2', 'lane 3']);
    expect(ended.sort()).toEqual(['lane 1', 'lane 2', 'lane 3']);
    expect(most).toBe(3);
    expect(calls).toBe(2 * 6 * 2);
    expect(scaling?.starts).toBe(12);
    expect(scaling?.jobs).toBe(3);
    // 6 starts of 30 ms take 180 ms one after another, 60 ms three at a time.
    const speedUp = (scaling?.oneAtATimeMs ?? 0) / (scaling?.atOnceMs ?? Number.POSITIVE_INFINITY);
    expect(speedUp).toBeGreaterThan(2);
  });

  test('a start that fails gives no measurement, and every lane is still ended', async () => {
    const ended: number[] = [];
    let n = 0;
    const scaling = await measureStartScaling(
      () => {
        const lane = ++n;
        return bare('x', () => ended.push(lane));
      },
      2,
      4,
      1,
      async () => undefined,
    );
    expect(scaling).toBeUndefined();
    expect(ended.sort()).toEqual([1, 2]);
  });

  test('no bare start gives no measurement', async () => {
    let calls = 0;
    const scaling = await measureStartScaling(
      () => undefined,
      2,
      4,
      1,
      async () => {
        calls++;
        return 1;
      },
    );
    expect(scaling).toBeUndefined();
    expect(calls).toBe(0);
  });

  test('real starts of a command that only sleeps run about twice as fast two at a time', async () => {
    const scaling = await measureStartScaling(
      () => ({ what: 'sleeper', command: 'sleep 0.2', env: process.env }),
      2,
      4,
      1,
    );
    expect(scaling?.oneAtATimeMs).toBeGreaterThanOrEqual(4 * 200);
    expect((scaling?.oneAtATimeMs ?? 0) / (scaling?.atOnceMs ?? Number.POSITIVE_INFINITY)).toBeGreaterThan(
      1.5,
    );
  });
});

describe('the start-scaling row', () => {
  test('a context row whose ratio is the speed-up, and the wall/floor that starts alone would read', () => {
    const row = startScalingRow(
      'messages-client',
      '',
      'client',
      { jobs: 2, starts: 16, oneAtATimeMs: 3000, atOnceMs: 2000 },
      'load average 0.50 after the run',
    );
    expect(row.name).toBe(
      'suite messages-client against its reference: bare client starts 2 at a time vs one after another',
    );
    expect(row).toMatchObject({ value: 2000, baseline: 3000, ratio: 1.5, goal: 0, unit: 'ms' });
    expect(row.note).toBe(
      '16 starts each way; 2 at a time ran 1.50x as fast as one after another, where the floor counts on 2x, so a run made of these starts alone reads wall/floor 1.33; load average 0.50 after the run',
    );
  });
});
