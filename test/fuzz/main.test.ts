import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { main } from '../../src/fuzz/main.js';
import { type FuzzSurface, FuzzViolation } from '../../src/fuzz/surface.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

/** Fails for any number >= 50: a known counterexample, shrunk to exactly 50. */
const brittle: FuzzSurface = {
  name: 'brittle',
  description: 'a surface that breaks on numbers of 50 and more',
  open: () => ({
    arbitrary: fc.nat({ max: 1000 }) as fc.Arbitrary<unknown>,
    check(n) {
      if ((n as number) >= 50) throw new FuzzViolation(`expected a number below 50, got ${String(n)}`);
    },
  }),
};
let closed = 0;
const sturdy: FuzzSurface = {
  name: 'sturdy',
  description: 'a surface that never breaks',
  open: () => ({ arbitrary: fc.nat() as fc.Arbitrary<unknown>, check() {}, close: () => void closed++ }),
};
const argv = (...args: string[]) => ['node', 'bin/fuzz.js', ...args];

describe('fuzz main', () => {
  test('runs the named surfaces with the given seed and runs, prints cases per surface, exits 0', async () => {
    const { io, out } = capture();
    const before = closed;
    expect(
      await main(argv('--surface', 'sturdy', '--runs', '25', '--seed', '7'), io, [brittle, sturdy]),
    ).toBe(0);
    expect(out[0]).toBe('wirecheck fuzz: seed 7, 25 cases per surface');
    expect(out[1]).toMatch(/^sturdy +25 cases +\d+\.\d\d s {2}ok$/);
    expect(out).toHaveLength(2);
    expect(closed).toBe(before + 1);
  });

  test('the columns line up under the longest surface name', async () => {
    const long = { ...sturdy, name: 'a-surface-name-of-27-chars' };
    const { io, out } = capture();
    expect(await main(argv('--runs', '3', '--seed', '7'), io, [sturdy, long])).toBe(0);
    const at = out.slice(1).map((line) => line.indexOf(' cases'));
    expect(at).toHaveLength(2);
    expect(at[0]).toBe(at[1]);
  });

  test('on a failure prints the seed, path, counterexample and reproduce command, and exits 1', async () => {
    const { io, out } = capture();
    expect(await main(argv('--seed', '3'), io, [sturdy, brittle])).toBe(1);
    const text = out.join('\n');
    expect(text).toMatch(/^brittle +\d+ cases .* FAILED$/m);
    expect(text).toContain('counterexample: 50');
    expect(text).toContain('error: FuzzViolation: expected a number below 50, got 50');
    expect(text).toContain('reproduce: npm run fuzz -- --surface brittle --seed=3');
    const path = /path "([\d:]+)"/.exec(text)?.[1];
    expect(path).toBeDefined();

    // The printed path replays the shrunk counterexample directly.
    const replay = capture();
    expect(
      await main(argv('--surface', 'brittle', '--seed', '3', '--path', path!), replay.io, [brittle]),
    ).toBe(1);
    expect(replay.out.join('\n')).toContain('counterexample: 50');
  });

  test('a negative seed is printed so that the reproduce line parses, and it reproduces', async () => {
    const { io, out } = capture();
    expect(await main(argv('--seed=-5'), io, [brittle])).toBe(1);
    const line = /reproduce: npm run fuzz -- (.*)$/m.exec(out.join('\n'))?.[1];
    expect(line).toBe('--surface brittle --seed=-5');
    const again = capture();
    expect(await main(argv(...line!.split(' ')), again.io, [brittle])).toBe(1);
    expect(again.out.join('\n')).toContain('counterexample: 50');
  });

  test('runs 10,000 cases per surface by default', async () => {
    const { io, out } = capture();
    expect(await main(argv('--surface', 'sturdy', '--seed', '1'), io, [sturdy])).toBe(0);
    expect(out[1]).toMatch(/^sturdy +10000 cases/);
  });

  test('a random seed is chosen and printed when none is given', async () => {
    const { io, out } = capture();
    expect(await main(argv('--surface', 'sturdy', '--runs', '1'), io, [sturdy])).toBe(0);
    expect(out[0]).toMatch(/^wirecheck fuzz: seed -?\d+, 1 cases per surface$/);
  });

  test.each([
    [['--surface', 'nope'], /unknown surface "nope"; surfaces: brittle, sturdy/],
    [['--runs', '0'], /--runs must be an integer >= 1, got "0"/],
    [['--seed', 'abc'], /--seed must be an integer/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['extra'], /positional/i],
  ])('bad usage %j exits 2 with the usage', async (args, message) => {
    const { io, err, out } = capture();
    expect(await main(argv(...args), io, [brittle, sturdy])).toBe(2);
    expect(err.join('\n')).toMatch(message);
    expect(err.join('\n')).toContain('usage: npm run fuzz --');
    expect(out).toEqual([]);
  });

  test('--list names every surface with its description', async () => {
    const { io, out } = capture();
    expect(await main(argv('--list'), io)).toBe(0);
    expect(out.map((l) => l.split(/\s+/)[0])).toEqual([
      'sse-decoder',
      'sse-limits',
      'line-limits',
      'stream-reducer',
      'mock-messages-http',
      'mock-scenario-replies',
      'runner-json-lines',
      'tool-server-stdio',
      'tool-server-sse',
    ]);
  });

  test('the real surfaces pass a short run through main', async () => {
    const { io, out } = capture();
    expect(await main(argv('--runs', '30', '--seed', '11'), io)).toBe(0);
    expect(out.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([
      'sse-decoder',
      'sse-limits',
      'line-limits',
      'stream-reducer',
      'mock-messages-http',
      'mock-scenario-replies',
      'runner-json-lines',
      'tool-server-stdio',
      'tool-server-sse',
    ]);
  });
});
