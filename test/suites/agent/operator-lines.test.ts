import { describe, expect, test } from 'vitest';
import { lineShape, linesBeyond, watchOperatorLines } from '../../../src/suites/agent/operator-lines.js';

function watched(caseName: string, lines: string[]) {
  const watch = watchOperatorLines(caseName);
  for (const line of lines) expect(watch.see(line)).toBe(false);
  return watch.found();
}

describe('the lines asking someone to act, as two runs of an agent print them', () => {
  test('a banner is the same line whatever its pid, working directory and case name', () => {
    const a = lineShape(
      '[agent 4711] running commands as user wirecheck in /tmp/x-3f9a/one-call',
      'one-call',
    );
    const b = lineShape(
      '[agent 80211] Running commands as user wirecheck in /tmp/x-b07c/consecutive-failures',
      'consecutive-failures',
    );
    expect(a).toBe(b);
    expect(lineShape('task: wirecheck case one-call: ask the user', 'one-call')).toBe(
      lineShape('task: wirecheck case failures-in-one-reply: ask the user', 'failures-in-one-reply'),
    );
  });

  test('the words of a line still tell it from another', () => {
    expect(lineShape('agent: done, see --help', 'c')).not.toBe(
      lineShape('agent: halted, operator needed', 'c'),
    );
  });

  test('only lines that ask count, one per shape', () => {
    const found = watched('c', [
      'agent: turn 1: request sent',
      '[agent 1] running as user wirecheck',
      '[agent 2] running as user wirecheck',
      'Human intervention needed.',
    ]);
    expect(found.lines.map((l) => l.line)).toEqual([
      '[agent 1] running as user wirecheck',
      'Human intervention needed.',
    ]);
    expect(found.more).toBe(false);
  });

  test('a run writing a new such line at every step keeps a bounded number, and says more came', () => {
    const found = watched(
      'c',
      Array.from({ length: 1000 }, (_, n) => `step ${'x'.repeat(n % 50)}${'y'.repeat(n)}: please check`),
    );
    expect(found.lines.length).toBeLessThan(1000);
    expect(found.more).toBe(true);
    expect(Math.max(...found.lines.map((l) => l.line.length))).toBeLessThanOrEqual(400);
  });

  test('the lines beyond a control are those it did not print', () => {
    const usual = watched('one-call', ['[agent 7] running as user wirecheck in /w/one-call']);
    const tripped = watched('three', [
      '[agent 9] running as user wirecheck in /w/three',
      'circuit breaker: operator intervention required',
    ]);
    expect(linesBeyond(tripped, usual).map((l) => l.line)).toEqual([
      'circuit breaker: operator intervention required',
    ]);
    const silent = watched('three', ['[agent 9] running as user wirecheck in /w/three']);
    expect(linesBeyond(silent, usual)).toEqual([]);
  });
});
