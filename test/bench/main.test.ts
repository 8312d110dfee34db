import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { BENCH_GROUPS, main, parseBenchCommand, QUICK_SIZES } from '../../src/bench/main.js';
import { buildDist, distIsFresh } from '../global-setup.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ROW_KEYS = ['baseline', 'goal', 'name', 'ratio', 'unit', 'value'];
/** Keys a row may have besides ROW_KEYS: a note when measured under load, and its stamps. */
const OPTIONAL_KEYS = ['note', 'measuredAt', 'commit'];
const PART_1_ROWS = [
  'mock/raw SSE, 300 text deltas, 64 frames per write',
  'mock SSE vs 1,000,000 frames/s, 300 text deltas, 64 frames per write',
  'mock/raw SSE, 300 text deltas, 1 frame per write',
  'mock/raw SSE, 300 text deltas, 64 frames per write, new message per request',
  'mock SSE vs 1,000,000 frames/s, 300 text deltas, 64 frames per write, new message per request',
  'client/parser baseline, 300 text deltas',
  'client/official SDK, 300 text deltas',
  'client/official SDK 0.x, 300 text deltas',
  'official SDK/parser baseline, 300 text deltas',
  'official SDK 0.x/parser baseline, 300 text deltas',
  'client/parser baseline, 200 input_json_delta fragments',
  'client/official SDK, 200 input_json_delta fragments',
  'client/official SDK 0.x, 200 input_json_delta fragments',
  'official SDK/parser baseline, 200 input_json_delta fragments',
  'official SDK 0.x/parser baseline, 200 input_json_delta fragments',
];
/** Issue 6's rows at --quick sizes, with their goals (0: a context row). */
const PEER_ROWS: [string, number][] = [
  ['mock/aimock SSE, 300 text deltas, 1 frame per write', 2],
  ['mock/aimock SSE, 300 text deltas, 64 frames per write', 8],
  ['aimock/raw node:http SSE, 300 text deltas, 1 frame per write', 0],
  ['mock/aimock SSE, 8 x 50 text deltas at once, 1 frame per write', 2],
  ['mock/aimock SSE, 8 x 50 text deltas at once, 64 frames per write', 8],
  ['aimock/raw node:http SSE, 8 x 50 text deltas at once, 1 frame per write', 0],
  ['mock time to first byte/raw node:http, 300 text deltas', 0.5],
  ['aimock time to first byte/raw node:http, 300 text deltas', 0],
  ['mock/aimock SSE, 10-delta streams, 8 at once, 1 frame per write', 2],
  ['mock/aimock SSE, 10-delta streams, 8 at once, 64 frames per write', 2],
  ['aimock/raw node:http SSE, 10-delta streams, 8 at once, 1 frame per write', 0],
];
const PACING_ROWS: [string, number][] = [
  ['mock pacing error vs 1 ms, 0.25 ms a frame on average for 60 ms', 1],
  ['mock paced frames/s vs schedule, 0.25 ms a frame on average for 60 ms', 0.95],
  ['aimock pacing error vs 1 ms, 0.25 ms a frame on average for 60 ms', 0],
  ['aimock paced frames/s vs schedule, 0.25 ms a frame on average for 60 ms', 0],
];
const TOOL_ROWS: [string, number][] = [
  ['tool server/raw JSON-RPC SSE echo, 10 sequential tools/call round trips', 0.8],
  ['tool server/MCP SDK SSEServerTransport, 10 sequential tools/call round trips', 1.4],
  ['MCP SDK SSEServerTransport/raw JSON-RPC SSE echo, 10 sequential tools/call round trips', 0],
  ['tool server/raw JSON-RPC SSE echo, 40 tools/call round trips, 8 in flight', 0.8],
  ['tool server/MCP SDK SSEServerTransport, 40 tools/call round trips, 8 in flight', 1.4],
  ['MCP SDK SSEServerTransport/raw JSON-RPC SSE echo, 40 tools/call round trips, 8 in flight', 0],
  ['tool server/raw JSON-RPC SSE echo, 6 sessions at once x 2 sequential tools/call round trips', 0.8],
  ...(['10 sequential tools/call round trips', '40 tools/call round trips, 8 in flight'].flatMap((shape) => [
    [`tool server/MCP SDK StreamableHTTPServerTransport, event-stream answers, ${shape}`, 1.4],
    [`tool server/MCP SDK StreamableHTTPServerTransport, JSON answers, ${shape}`, 1.4],
    [`tool server, JSON answers/raw node:http JSON echo, ${shape}`, 0],
    [`MCP SDK StreamableHTTPServerTransport, JSON answers/raw node:http JSON echo, ${shape}`, 0],
  ]) as [string, number][]),
  ['tool server over stdio/raw child-process echo, 10 sequential tools/call round trips', 0.8],
  ['tool server over stdio/raw child-process echo, 40 tools/call round trips, 8 in flight', 0.8],
];
const MEMORY_ROWS: [string, number][] = [
  ['mock peak RSS/raw node:http, one 300-delta stream', 0.833],
  ['aimock peak RSS/raw node:http, one 300-delta stream', 0],
  ['mock peak RSS/raw node:http, 4 x 200-delta streams at once', 0.833],
  ['aimock peak RSS/raw node:http, 4 x 200-delta streams at once', 0],
  ['mock RSS growth behind a slow reader vs 16 MiB budget, one 300-delta stream', 1],
  ['mock/raw node:http RSS growth behind a slow reader, one 300-delta stream', 0],
  ['aimock/raw node:http RSS growth behind a slow reader, one 300-delta stream', 0],
];
const ISSUE_6_ROWS = [...PEER_ROWS, ...PACING_ROWS, ...TOOL_ROWS, ...MEMORY_ROWS];
const PROXY_ROW = 'recording proxy/direct to the mock, 300 text deltas, 64 frames per write';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}
const argv = (...args: string[]) => ['node', 'bin/bench.js', ...args];

function expectRows(json: unknown): asserts json is Record<string, unknown>[] {
  expect(Array.isArray(json)).toBe(true);
  for (const row of json as unknown[]) {
    const r = row as Record<string, unknown>;
    // A note is there only when the row was measured under load.
    expect(
      Object.keys(r)
        .filter((k) => !OPTIONAL_KEYS.includes(k))
        .sort(),
    ).toEqual(ROW_KEYS);
    if ('note' in r) expect(typeof r.note).toBe('string');
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
    expect([...command.groups]).toEqual([...BENCH_GROUPS]);
    expect(command.markdown).toBe(false);
  });

  test("a full run uses the issue's sizes for the peer rows and waits for a quiet machine; --quick does not wait", () => {
    const { peers, maxWaitMs } = parseBenchCommand([]);
    expect(peers).toMatchObject({ oneDeltas: 100_000, manyStreams: 100, shortConcurrency: 64 });
    expect(peers).toMatchObject({
      memoryStreams: 100,
      memoryDeltas: 10_000,
      slowPauseMs: 2_000,
      pacedMs: 1_000,
    });
    expect(maxWaitMs).toBeGreaterThan(0);
    expect(parseBenchCommand(['--quick']).maxWaitMs).toBe(0);
    expect(parseBenchCommand(['--max-wait', '30']).maxWaitMs).toBe(30_000);
  });

  test('--only picks parts of the run and refuses unknown ones', async () => {
    expect([...parseBenchCommand(['--only', 'peers,tools']).groups]).toEqual(['peers', 'tools']);
    const { io, err } = capture();
    expect(await main(argv('--only', 'peers,frobs'), io)).toBe(2);
    expect(err.join('\n')).toMatch(
      /--only takes parts among messages, peers, memory, pacing, tools, runner, recording, suites, got "frobs"/,
    );
  });

  test('bad usage exits 2 with the usage and measures nothing', async () => {
    const { io, err } = capture();
    expect(await main(argv('--rounds', '0'), io)).toBe(2);
    expect(err.join('\n')).toMatch(/--rounds must be an integer >= 1, got "0"[\s\S]*usage: npm run bench/);
    expect(await main(argv('--frobnicate'), io)).toBe(2);
  });
});

describe('bench run (quick, servers in this thread)', () => {
  test('prints the table with every row of every part and writes them as {name, value, unit, baseline, ratio, goal}', async () => {
    const out = join(dir, 'bench.json');
    const { io, out: lines, err } = capture();
    // Every part but the suites (whole suite runs against the references: suite-bench.test.ts).
    const parts = BENCH_GROUPS.filter((g) => g !== 'suites').join(',');
    expect(
      await main(argv('--quick', '--markdown', '--only', parts, '--out', out), io, { inlineServers: true }),
    ).toBe(0);
    expect(err).toEqual([]);
    expect(lines[1]).toMatch(/^machine: \d+ CPUs/);
    expect(lines[2]).toMatch(/^software: node v\d+.*@copilotkit\/aimock \d/);
    const header = lines.findIndex((l) => /^name +value +unit +baseline +ratio +goal +met\?$/.test(l));
    expect(header).toBeGreaterThan(0);
    for (const name of [...PART_1_ROWS, ...ISSUE_6_ROWS.map(([n]) => n)]) {
      expect(
        lines.some((l) => l.startsWith(name) && /(yes|NO|-)$/.test(l)),
        name,
      ).toBe(true);
    }
    const json = JSON.parse(await readFile(out, 'utf8'));
    expectRows(json);
    const names = json
      .map((r) => String(r.name))
      .filter((n) => !n.startsWith('runner') && !n.startsWith('recording proxy'));
    // The recording proxy's row (issue 5), after every other part.
    expect(json.at(-1)).toMatchObject({ name: PROXY_ROW, unit: 'frames/s', goal: 0.8 });
    expect(names).toEqual(
      [...PART_1_ROWS, ...PEER_ROWS, ...PACING_ROWS, ...TOOL_ROWS, ...MEMORY_ROWS].map((r) =>
        typeof r === 'string' ? r : r[0],
      ),
    );
    const goals = Object.fromEntries(json.map((r) => [r.name, r.goal]));
    expect(goals[PART_1_ROWS[0]!]).toBe(0.9);
    expect(goals[PART_1_ROWS[1]!]).toBe(1);
    expect(goals[PART_1_ROWS[2]!]).toBe(0.9);
    expect(goals[PART_1_ROWS[3]!]).toBe(0.9);
    expect(goals[PART_1_ROWS[4]!]).toBe(1);
    expect(goals[PART_1_ROWS[5]!]).toBe(0.8);
    expect(goals[PART_1_ROWS[6]!]).toBe(1.8);
    expect(goals[PART_1_ROWS[7]!]).toBe(1.8);
    for (const [name, goal] of ISSUE_6_ROWS) expect(goals[name], name).toBe(goal);
    const target = json[1]!;
    expect(target.baseline).toBe(1_000_000);
    expect(lines).toContain('| name | value | unit | baseline | ratio | goal | met? | note |');
    expect(lines.some((l) => l.startsWith('| mock/aimock SSE, 300 text deltas, 1 frame per write |'))).toBe(
      true,
    );
    expect(lines.at(-1)).toBe(`wrote ${out}`);
  }, 120_000);

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
    expect(
      await main(argv('--quick', '--only', 'messages', '--out', out), capture().io, { inlineServers: true }),
    ).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expectRows(json);
    expect(json[0]).toEqual(foreign);
    expect(json[1]!.name).toBe(stale.name);
    expect(json[1]!.value).toBeGreaterThan(0);
    // Today's rows are stamped; the kept one from an earlier run is not, so the two read apart.
    expect(Date.parse(String(json[1]!.measuredAt))).toBeGreaterThan(Date.now() - 600_000);
    expect(json[1]!.commit).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
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
    expect(await main(argv('--quick', '--only', 'messages', '--out', out), io, { inlineServers: true })).toBe(
      2,
    );
    expect(err.join('\n')).toMatch(/expected a JSON list of \{name, value, unit, baseline, ratio, goal\}/);
    expect(await readFile(out, 'utf8')).toBe('{"rows": []}');
  });
});

describe('bin/bench.js (built, servers in a worker thread)', () => {
  beforeAll(() => {
    if (!distIsFresh()) buildDist();
  }, 120_000);

  test('a --quick run exits 0 and writes valid rows (part 1, peers, pacing and tool servers hosted in the worker)', async () => {
    const out = join(dir, 'bench.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'bin/bench.js'), '--quick', '--only', 'messages,peers,pacing,tools', '--out', out],
      { cwd: ROOT, timeout: 90_000 },
    );
    expect(stdout).toMatch(/^wirecheck bench: 300 text deltas/);
    const json = JSON.parse(await readFile(out, 'utf8'));
    expectRows(json);
    expect(json.map((r) => r.name)).toEqual([
      ...PART_1_ROWS,
      ...[...PEER_ROWS, ...PACING_ROWS, ...TOOL_ROWS].map(([n]) => n),
    ]);
  }, 120_000);
});
