import { describe, expect, test } from 'vitest';
import { runSuiteBench } from '../../src/bench/suite-bench.js';
import { CASE_KEYS } from '../../src/suites/agent/cases.js';
import { buildDist, distIsFresh } from '../global-setup.js';

describe('the suites part of the bench', () => {
  test('a suite against its reference gives a wall-vs-floor row with the goal 1/1.5 and what the floor is made of', async () => {
    if (!distIsFresh()) buildDist();
    const lines: string[] = [];
    const rows = await runSuiteBench({ quick: true, suites: ['agent'], log: (l) => lines.push(l) });
    expect(rows).toHaveLength(2);
    const [row, cpu] = rows;
    expect(row?.name).toBe('suite agent against its reference, quick tier: wall time vs floor');
    expect(row?.unit).toBe('ms');
    expect(row?.goal).toBeCloseTo(1 / 1.5, 3);
    expect(row?.baseline).toBeGreaterThan(0);
    expect(row?.ratio).toBeCloseTo((row?.baseline ?? 0) / (row?.value ?? 1), 2);
    expect(row?.note).toMatch(/^floor = \d+ agent starts x \d+ ms \/ \d+ jobs?; wall\/floor \d/);
    expect(lines.some((l) => /^suite agent: .* 0 failed/.test(l))).toBe(true);
    // The agents' own CPU: one run of a node process per case and their bash commands take well over
    // what their bare starts alone would.
    expect(cpu?.name).toMatch(
      /^suite agent against its reference, quick tier: wall time vs its target processes' CPU \/ \d+ cores$/,
    );
    expect(cpu?.goal).toBe(0);
    expect(cpu?.value).toBe(row?.value);
    expect(cpu?.note).toMatch(
      new RegExp(
        `^target CPU \\d+(\\.\\d+)? ms or more \\(${CASE_KEYS.length} agent runs and the processes they waited for, less 3 bare starts x \\d`,
      ),
    );
    const cores = Number(cpu?.name.match(/\/ (\d+) cores$/)?.[1]);
    const cpuMs = Number(cpu?.note?.match(/^target CPU (\d+(\.\d+)?) ms or more/)?.[1]);
    expect(cpuMs).toBeGreaterThan(0);
    expect(cpu?.baseline).toBeCloseTo(cpuMs / cores, -1);
  }, 120_000);

  test('a suite that starts no process per case gives a context row (goal 0) saying why it has no floor', async () => {
    const lines: string[] = [];
    const rows = await runSuiteBench({
      quick: true,
      suites: ['messages-service'],
      log: (l) => lines.push(l),
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.name).toMatch(
      /^suite messages-service against its reference, quick tier: wall time vs its checks' own time \/ \d+ jobs?$/,
    );
    expect(rows[0]?.goal).toBe(0);
    expect(rows[0]?.baseline).toBeGreaterThan(0);
    expect(rows[0]?.note).toMatch(/^no floor: /);
    expect(lines.some((l) => /^suite messages-service: .* 0 failed/.test(l))).toBe(true);
  }, 60_000);
});
