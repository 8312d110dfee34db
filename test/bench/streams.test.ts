import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parserBaseline } from '../../src/bench/parser-baseline.js';
import { BENCH_HEADERS, BENCH_REQUEST } from '../../src/bench/request.js';
import { type HostedServers, hostBenchServers } from '../../src/bench/servers.js';
import { contentKey, sseBatches, textStream, toolStream } from '../../src/bench/streams.js';
import { decodeFrames } from '../../src/protocol/sse/index.js';

const sizes = { textDeltas: 250, jsonFragments: 120, framesPerWrite: 64 };
let servers: HostedServers;
beforeAll(async () => {
  servers = await hostBenchServers(sizes);
});
afterAll(async () => {
  await servers.close();
});

async function body(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/messages`, {
    method: 'POST',
    headers: BENCH_HEADERS,
    body: JSON.stringify(BENCH_REQUEST),
  });
  expect(res.status).toBe(200);
  return res.text();
}

function deltaTypes(sse: string): string[] {
  return decodeFrames([sse])
    .frames.filter((f) => f.event === 'content_block_delta')
    .map((f) => (JSON.parse(f.data) as { delta: { type: string } }).delta.type);
}

describe('bench streams', () => {
  test('the text stream has exactly the asked number of text_delta frames', () => {
    const stream = textStream(250);
    expect(stream.frames).toBe(255);
    expect(deltaTypes(sseBatches(stream, 64).join(''))).toEqual(Array(250).fill('text_delta'));
  });

  test('the tool stream has exactly the asked number of input_json_delta frames', () => {
    const stream = toolStream(120);
    expect(deltaTypes(sseBatches(stream, 7).join(''))).toEqual(Array(120).fill('input_json_delta'));
  });

  test('batches hold framesPerWrite frames each, the last one the rest', () => {
    const batches = sseBatches(textStream(250), 64);
    expect(batches.map((b) => decodeFrames([b]).frames.length)).toEqual([64, 64, 64, 63]);
  });
});

describe('bench servers: both sides of a comparison serve the same bytes', () => {
  test('the mock sends byte for byte what the raw server sends, batched and per frame, first and repeated', async () => {
    const expected = sseBatches(textStream(sizes.textDeltas), 1).join('');
    for (let i = 0; i < 3; i++) {
      expect(await body(servers.urls.mockBatched)).toBe(expected);
      expect(await body(servers.urls.mockPerFrame)).toBe(expected);
      expect(await body(servers.urls.mockFresh)).toBe(expected);
    }
    expect(await body(servers.urls.rawBatched)).toBe(expected);
    expect(await body(servers.urls.rawPerFrame)).toBe(expected);
    expect(await body(servers.urls.rawTool)).toBe(sseBatches(toolStream(sizes.jsonFragments), 1).join(''));
  });

  test('the parser baseline reduces each stream to the streamed content', async () => {
    const text = await parserBaseline(servers.urls.rawBatched)();
    expect(contentKey(text.content)).toBe(contentKey(textStream(sizes.textDeltas).message.content));
    const tool = await parserBaseline(servers.urls.rawTool)();
    expect(contentKey(tool.content)).toBe(contentKey(toolStream(sizes.jsonFragments).message.content));
  });
});
