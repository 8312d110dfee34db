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
    // 300 ms of CPU in a child that this process waits for, counted by the child's own CPU
    // clock (a loop of 300 ms of wall time gets less CPU on a busy machine); 10 s at most.
    const spin =
      'const t = Date.now(); while (Date.now() - t < 10000) { const u = process.cpuUsage(); if (u.user + u.system >= 300000) break; }';
    const run = spawnSync(process.execPath, ['-e', spin]);
    expect(run.status).toBe(0);
    const after = waitedChildrenCpuMs() as number;
    expect(after - (before as number)).toBeGreaterThanOrEqual(200);
  });
});
