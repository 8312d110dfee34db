import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { waitedChildrenCpuMs, waitedChildrenCpuMsOf } from '../../src/bench/children-cpu.js';

describe('the CPU of waited-for children (/proc/self/stat)', () => {
  test('reads fields 16 and 17 (cutime, cstime) in ticks of 10 ms, after a name with spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[16 - 3] = '42';
    fields[17 - 3] = '8';
    expect(waitedChildrenCpuMsOf(`1234 (node (a) b) ${fields.join(' ')}\n`)).toBe(500);
  });

  test('text that is not a stat line gives undefined', () => {
    expect(waitedChildrenCpuMsOf('no parentheses here')).toBeUndefined();
    expect(waitedChildrenCpuMsOf('1 (x) R 1 2')).toBeUndefined();
  });

  test("grows by a waited-for child's busy loop", () => {
    const before = waitedChildrenCpuMs();
    expect(before).toBeDefined();
    // About 300 ms of CPU in a child that this process waits for.
    const run = spawnSync(process.execPath, ['-e', 'const t = Date.now(); while (Date.now() - t < 300) {}']);
    expect(run.status).toBe(0);
    const after = waitedChildrenCpuMs() as number;
    expect(after - (before as number)).toBeGreaterThanOrEqual(200);
  });
});
