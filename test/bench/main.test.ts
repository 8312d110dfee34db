import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { main, parseBenchCommand, QUICK_SIZES } from '../../src/bench/main.js';
import { buildDist, distIsFresh } from '../global-setup.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ROW_KEYS = ['baseline', 'goal', 'name', 'ratio', 'unit', 'value'];
const PART_1_ROWS = [
  'mock/raw SSE, 300 text deltas, 64 frames per write',
  'mock SSE vs 1,000,000 frames/s, 300 text deltas, 64 frames per write',
  'mock/raw SSE, 300 text deltas, 1 frame per write',
  'mock/raw SSE, 300 text deltas, 64 frames per write, new message per request',
  'mock SSE vs 1,000,000 frames/s, 300 text deltas, 64 frames per write, new message per request',
  'client/parser baseline, 300 text deltas',
  'client/official SDK, 300 text deltas',
  'client/parser baseline, 200 input_json_delta fragments',
  'client/official SDK, 200 input_json_delta fragments',
];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}
const argv = (...args: string[]) => ['node', 'bin/bench.js', ...args];

function expectRows(json: unknown): asserts json is Record<string, unknown>[] {
  expect(Array.isArray(json)).toBe(true);
  for (const row of json as unknown[]) {
    expect(Object.keys(row as object).sort()).toEqual(ROW_KEYS);
    const r = row as Record<string, unknown>;
    expect(typeof r.name).toBe('string');
    expect(typeof r.unit).toBe('string');
    for (const key of ['value', 'baseline', 'ratio', 'goal']) {
      expect(Number.isFinite(r[key]), `${String(r.name)}: ${key}`).toBe(true);
    }
  }
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-bench-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bench command line', () => {
  test('--quick is a tiny smoke run of one measured round', () => {
    const command = parseBenchCommand(['--quick']);
    expect(command.sizes).toEqual(QUICK_SIZES);
    expect(command.rounds).toBe(1);
    expect(command.out).toBe('reports/bench-quick.json');
  });

  test('a full run defaults to 100000 text deltas, 10000 fragments, >= 5 rounds, reports/bench.json', () => {
    const command = parseBenchCommand([]);
    expect(command.sizes).toEqual({ textDeltas: 100_000, jsonFragments: 10_000, framesPerWrite: 64 });
    expect(command.rounds).toBeGreaterThanOrEqual(5);
    expect(command.warmupRounds).toBeGreaterThanOrEqual(1);
    expect(command.out).toBe('reports/bench.json');
  });

  test('bad usage exits 2 with the usage and measures nothing', async () => {
    const { io, err } = capture();
    expect(await main(argv('--rounds', '0'), io)).toBe(2);
    expect(err.join('\n')).toMatch(/--rounds must be an integer >= 1, got "0"[\s\S]*usage: npm run bench/);
    expect(await main(argv('--frobnicate'), io)).toBe(2);
  });
});

describe('bench run (quick, servers in this thread)', () => {
  test('prints the table with every part 1 row and writes them as {name, value, unit, baseline, ratio, goal}', async () => {
    const out = join(dir, 'bench.json');
    const { io, out: lines, err } = capture();
    expect(await main(argv('--quick', '--out', out), io, { inlineServers: true })).toBe(0);
    expect(err).toEqual([]);
    const header = lines.findIndex((l) => /^name +value +unit +baseline +ratio +goal +met\?$/.test(l));
    expect(header).toBeGreaterThan(0);
    for (const name of PART_1_ROWS) {
      expect(lines.some((l) => l.startsWith(name) && /(yes|NO)$/.test(l))).toBe(true);
    }
    const json = JSON.parse(await readFile(out, 'utf8'));
    expectRows(json);
    expect(json.map((r) => r.name).filter((n) => !String(n).startsWith('runner'))).toEqual(PART_1_ROWS);
    const goals = Object.fromEntries(json.map((r) => [r.name, r.goal]));
    expect(goals[PART_1_ROWS[0]!]).toBe(0.9);
    expect(goals[PART_1_ROWS[1]!]).toBe(1);
    expect(goals[PART_1_ROWS[2]!]).toBe(0.9);
    expect(goals[PART_1_ROWS[3]!]).toBe(0.9);
    expect(goals[PART_1_ROWS[4]!]).toBe(1);
    expect(goals[PART_1_ROWS[5]!]).toBe(0.8);
    expect(goals[PART_1_ROWS[6]!]).toBe(1);
    const target = json[1]!;
    expect(target.baseline).toBe(1_000_000);
    expect(lines.at(-1)).toBe(`wrote ${out}`);
  });

  test('the report keeps rows of other parts and replaces rows of the same name', async () => {
    const out = join(dir, 'bench.json');
    const foreign = {
      name: 'part 2: tool runner',
      value: 1,
      unit: 'runs/s',
      baseline: 2,
      ratio: 0.5,
      goal: 1,
    };
    const stale = { name: PART_1_ROWS[5]!, value: -1, unit: 'frames/s', baseline: -1, ratio: -1, goal: 0.8 };
    await writeFile(out, JSON.stringify([foreign, stale]));
    expect(await main(argv('--quick', '--out', out), capture().io, { inlineServers: true })).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expectRows(json);
    expect(json[0]).toEqual(foreign);
    expect(json[1]!.name).toBe(stale.name);
    expect(json[1]!.value).toBeGreaterThan(0);
    expect(json.filter((r) => r.name === stale.name).length).toBe(1);
    expect(
      json
        .map((r) => r.name)
        .filter((n) => !String(n).startsWith('runner'))
        .sort(),
    ).toEqual([foreign.name, ...PART_1_ROWS].sort());
  });

  test('a report that is not a list of rows stops the run with exit 2 and is left as it was', async () => {
    const out = join(dir, 'bench.json');
    await writeFile(out, '{"rows": []}');
    const { io, err } = capture();
    expect(await main(argv('--quick', '--out', out), io, { inlineServers: true })).toBe(2);
    expect(err.join('\n')).toMatch(/expected a JSON list of \{name, value, unit, baseline, ratio, goal\}/);
    expect(await readFile(out, 'utf8')).toBe('{"rows": []}');
  });
});

describe('bin/bench.js (built, servers in a worker thread)', () => {
  beforeAll(() => {
    if (!distIsFresh()) buildDist();
  }, 120_000);

  test('a --quick run exits 0 and writes valid rows', async () => {
    const out = join(dir, 'bench.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'bin/bench.js'), '--quick', '--out', out],
      { cwd: ROOT, timeout: 60_000 },
    );
    expect(stdout).toMatch(/^wirecheck bench: 300 text deltas/);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expectRows(json);
    expect(json.map((r) => r.name).filter((n) => !String(n).startsWith('runner'))).toEqual(PART_1_ROWS);
  });
});
