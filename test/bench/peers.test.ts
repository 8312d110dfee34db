import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { frameEndCounter, scheduleFit } from '../../src/bench/pacing.js';
import { probeTarget } from '../../src/bench/peer-comparisons.js';
import {
  aimockPacedDeltas,
  hostPeerServers,
  PACING_MEAN_MS,
  PEER_KINDS,
  PEER_PROMPTS,
  type PeerSizes,
  type PeerUrls,
  pacingSchedule,
  peerStreams,
  peerTarget,
} from '../../src/bench/peer-servers.js';
import { BENCH_HEADERS, benchBody } from '../../src/bench/request.js';
import { type BenchRow, budgetRow, lowerIsBetterRow, withNote } from '../../src/bench/rows.js';
import { ECHO_TEXT, echoCall, echoCalls, initialize, openSseSession } from '../../src/bench/rpc-session.js';
import {
  fixedTextStream,
  lazyTextBatches,
  PIECE_WIDTH,
  sseBatches,
  textStream,
} from '../../src/bench/streams.js';
import { formatMarkdown, formatTable } from '../../src/bench/table.js';
import { hostToolServers, type ToolUrls } from '../../src/bench/tool-servers.js';

const SIZES: PeerSizes = {
  oneDeltas: 40,
  manyStreams: 3,
  manyDeltas: 12,
  shortDeltas: 4,
  shortConcurrency: 2,
  shortRequests: 4,
  memoryStreams: 2,
  memoryDeltas: 10,
  slowPauseMs: 10,
  pacedMs: 20,
};

describe('peer streams (the issue: the same number of text deltas on both sides)', () => {
  test('every delta of the fixed-width stream is PIECE_WIDTH characters, so aimock cutting by chunkSize gives the same deltas', () => {
    const s = fixedTextStream(9);
    expect(s.text.length).toBe(9 * PIECE_WIDTH);
    expect(s.splits[0]).toEqual(Array.from({ length: 8 }, (_, i) => (i + 1) * PIECE_WIDTH));
    expect(s.frames).toBe(9 + 5);
  });

  test('the pacing schedule starts with no delay and averages PACING_MEAN_MS a frame', () => {
    const schedule = pacingSchedule(601);
    expect(schedule[0]).toBe(0);
    const mean = schedule.slice(1).reduce((a, b) => a + b, 0) / 600;
    expect(mean).toBeCloseTo(PACING_MEAN_MS, 10);
    expect(PACING_MEAN_MS).toBeLessThan(1);
  });
});

describe('pacing fit (the issue: a schedule honoured on average within 1 ms, not capped at a frame per ms)', () => {
  test('arrivals exactly on schedule: no error, full rate; a constant offset from the first frame on is no error', () => {
    const plan = [0, 0.5, 1, 1.5, 2];
    expect(scheduleFit(plan, plan)).toEqual({ errorMs: 0, rate: 1, closeness: 1 });
    expect(
      scheduleFit(
        plan.map((t) => t + 7),
        plan,
      ),
    ).toEqual({ errorMs: 0, rate: 1, closeness: 1 });
  });

  test('a server capped at one frame per ms reaches half of a 0.5 ms schedule and lags more each frame', () => {
    const plan = [0, 0.5, 1, 1.5, 2];
    const capped = [0, 1, 2, 3, 4];
    const fit = scheduleFit(capped, plan);
    expect(fit.rate).toBe(0.5);
    expect(fit.errorMs).toBe((0 + 0.5 + 1 + 1.5 + 2) / 5);
    expect(() => scheduleFit([0], [0, 1])).toThrow(/expected 2 paced frames/);
  });

  test('frame ends are counted across chunk boundaries, also between the two line feeds', () => {
    const counter = frameEndCounter();
    const bytes = (s: string) => new TextEncoder().encode(s);
    expect(counter.feed(bytes('event: a\ndata: {}\n'))).toBe(0);
    expect(counter.feed(bytes('\nevent: b\ndata: {}\n\nevent: c\n'))).toBe(2);
    expect(counter.feed(bytes('data: {}\n\n'))).toBe(1);
  });
});

describe('peer servers: the mock, aimock and raw node:http serve the same deltas', () => {
  let hosted: { urls: PeerUrls; close(): Promise<void> };
  beforeAll(async () => {
    hosted = await hostPeerServers(SIZES);
  }, 30_000);
  afterAll(async () => {
    await hosted.close();
  });

  test('every kind serves every stream with exactly the deltas asked for, ending in message_stop', async () => {
    const deltas = { one: SIZES.oneDeltas, many: SIZES.manyDeltas, short: SIZES.shortDeltas } as const;
    for (const kind of PEER_KINDS) {
      for (const [name, n] of Object.entries(deltas) as [keyof typeof deltas, number][]) {
        const target = await probeTarget(peerTarget(hosted.urls, kind, name), PEER_PROMPTS[name], n);
        expect(target.bytes).toBeGreaterThan(0);
      }
    }
  });

  test('the mock sends exactly the raw server bytes, batched or not', async () => {
    const read = async (url: string) => {
      const res = await fetch(`${url}/v1/messages`, {
        method: 'POST',
        headers: BENCH_HEADERS,
        body: benchBody(PEER_PROMPTS.one),
      });
      return res.text();
    };
    const raw = await read(peerTarget(hosted.urls, 'raw-1', 'one'));
    expect(await read(hosted.urls['mock-1'])).toBe(raw);
    expect(await read(hosted.urls['mock-64'])).toBe(raw);
  });

  test('the paced stream: the mock with the whole schedule, aimock with a quarter of the deltas at the mean latency', async () => {
    const paced = peerStreams(SIZES).paced;
    await probeTarget(hosted.urls['mock-64'], PEER_PROMPTS.paced, paced.frames - 5);
    await probeTarget(hosted.urls.aimock, PEER_PROMPTS.paced, aimockPacedDeltas(paced.text));
    await expect(probeTarget(hosted.urls.aimock, PEER_PROMPTS.one, SIZES.oneDeltas + 1)).rejects.toThrow(
      /expected 41 text deltas ending in message_stop, got 40/,
    );
  });
});

describe('SSE tool servers: reference, raw JSON-RPC echo and MCP SDK answer the same echo calls', () => {
  let hosted: { urls: ToolUrls; close(): Promise<void> };
  beforeAll(async () => {
    hosted = await hostToolServers();
  }, 30_000);
  afterAll(async () => {
    await hosted.close();
  });

  test.each(['reference', 'raw', 'sdk'] as const)(
    '%s: initialize, then echo calls one at a time and 8 in flight',
    async (which) => {
      const session = await openSseSession(hosted.urls[which]);
      try {
        await initialize(session);
        await echoCall(session);
        await echoCalls(session, 20, 8);
        const result = (await session.call('tools/call', {
          name: 'echo',
          arguments: { text: ECHO_TEXT },
        })) as {
          content: { text: string }[];
        };
        expect(result.content[0]!.text).toBe(ECHO_TEXT);
      } finally {
        session.close();
      }
    },
  );
});

describe('rows and tables of the peer part', () => {
  const row = (over: Partial<BenchRow>): BenchRow => ({
    name: 'r',
    value: 1,
    unit: 'x',
    baseline: 1,
    ratio: 1,
    goal: 1,
    ...over,
  });

  test('lower-is-better rows keep value and baseline as measured and put baseline/value in the ratio', () => {
    expect(lowerIsBetterRow('rss', 'MiB', 0.833, [120, 100, 110], [100, 100, 100])).toEqual({
      name: 'rss',
      value: 110,
      unit: 'MiB',
      baseline: 100,
      ratio: 0.9091,
      goal: 0.833,
    });
    expect(budgetRow('growth', 'MiB', 1, [4, 8, 2], 16)).toEqual({
      name: 'growth',
      value: 4,
      unit: 'MiB',
      baseline: 16,
      ratio: 4,
      goal: 1,
    });
  });

  test('a context row (goal 0) shows no goal; notes are listed once under the table and kept in the Markdown', () => {
    const rows = [
      withNote(row({ name: 'a' }), 'measured under load'),
      withNote(row({ name: 'b' }), 'measured under load'),
      row({ name: 'peer/raw', goal: 0, ratio: 0.4 }),
    ];
    const lines = formatTable(rows);
    expect(lines[2]).toMatch(/^a \[1\] /);
    expect(lines[3]).toMatch(/^b \[1\] /);
    expect(lines[4]).toMatch(/^peer\/raw +1 +x +1 +0\.40 +- +-$/);
    expect(lines.slice(5)).toEqual(['', '[1] measured under load']);
    const md = formatMarkdown(rows);
    expect(md[0]).toBe('| name | value | unit | baseline | ratio | goal | met? | note |');
    expect(md[2]).toBe('| a | 1 | x | 1 | 1.00 | 1 | yes | measured under load |');
    expect(md[4]).toBe('| peer/raw | 1 | x | 1 | 0.40 | - | - |  |');
  });
});

describe('the memory baseline makes its frames per request', () => {
  test('lazyTextBatches gives exactly the bytes of sseBatches, batched the same way', () => {
    for (const stream of [fixedTextStream(130), textStream(70)]) {
      for (const per of [1, 64]) expect([...lazyTextBatches(stream, per)]).toEqual(sseBatches(stream, per));
    }
  });
});
