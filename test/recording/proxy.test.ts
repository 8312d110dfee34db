import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  bytesOfChunk,
  type MessagesExchange,
  readFixtureFile,
  validateFixture,
} from '../../src/fixtures/index.js';
import {
  type MockMessagesService,
  type Reply,
  recordingScenario,
  startMockMessagesService,
} from '../../src/mocks/messages/index.js';
import { type RecordingProxy, startRecordingProxy } from '../../src/recording/index.js';
import { postRaw, type RawReply } from './raw-client.js';

const reply: Reply = {
  kind: 'message',
  message: {
    id: 'msg_recorded',
    type: 'message',
    role: 'assistant',
    model: 'mock-model',
    content: [{ type: 'text', text: 'Recorded, then replayed: the same bytes.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 9 },
  },
  // 4 deltas: 10 frames in all.
  splits: [[9, 17, 28]],
};
const request = {
  model: 'mock-model',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
};

let mock: MockMessagesService;
let proxy: RecordingProxy;
let dir: string;
const replays: MockMessagesService[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-'));
  mock = await startMockMessagesService({ scenario: () => reply });
  proxy = await startRecordingProxy({ upstream: mock.url, outDir: dir, keepExchanges: true });
});
afterEach(async () => {
  mock.setFaults(undefined);
  await Promise.all(replays.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await proxy.close();
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

/** Send through the proxy and return what the client saw and what was recorded. */
async function record(body: unknown = request): Promise<{ seen: RawReply; exchange: MessagesExchange }> {
  const before = proxy.exchanges.length;
  const seen = await postRaw(proxy.url, body);
  await proxy.settled();
  expect(proxy.exchanges.length).toBe(before + 1);
  return { seen, exchange: proxy.exchanges[before]! };
}

async function replay(exchange: MessagesExchange, speed = 1): Promise<RawReply> {
  const service = await startMockMessagesService({ scenario: recordingScenario([exchange], { speed }) });
  replays.push(service);
  return postRaw(service.url, request);
}

const hex = (chunks: { bytes: Buffer }[]) => chunks.map((c) => c.bytes.toString('hex'));
const recordedHex = (e: MessagesExchange) => e.response.chunks.map((c) => bytesOfChunk(c).toString('hex'));

describe('record messages: the proxy forwards unchanged and records losslessly', () => {
  test('a streamed reply reaches the client unchanged, one recorded chunk per upstream write', async () => {
    mock.setFaults({ delayMs: 20 });
    const direct = await postRaw(mock.url, request);
    const { seen, exchange } = await record();
    expect(Buffer.concat(seen.chunks.map((c) => c.bytes)).toString()).toBe(
      Buffer.concat(direct.chunks.map((c) => c.bytes)).toString(),
    );
    expect(exchange.response.status).toBe(200);
    expect(exchange.response.end).toBe('complete');
    expect(exchange.response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(exchange.response.chunks.length).toBeGreaterThanOrEqual(8);
    expect(hex(seen.chunks)).toEqual(recordedHex(exchange));
    expect(exchange.request.body).toEqual(request);
    expect(validateFixture(exchange)).toMatchObject({ ok: true, recorded: [] });
  });

  test('a recording replays byte for byte, with its chunk boundaries and its timing (not sooner than recorded)', async () => {
    mock.setFaults({ delayMs: 20 });
    const { exchange } = await record();
    const files = (await readdir(dir)).sort();
    const fromDisk = (await readFixtureFile(join(dir, files[files.length - 1]!))) as MessagesExchange;
    expect(fromDisk).toEqual(exchange);
    const sent = performance.now();
    const replayed = await replay(fromDisk);
    const tookMs = performance.now() - sent;
    expect(replayed.status).toBe(200);
    expect(replayed.end).toBe('complete');
    expect(hex(replayed.chunks)).toEqual(recordedHex(exchange));
    // A lower bound only: load makes a replay late, never early, so an upper bound fails under
    // load (it did, by a chunk more than 50 ms late). Times the client saw chunks apart prove
    // nothing either way: a client stalled by load reads every chunk at once. But no client gets
    // the last chunk before the replay has waited out the recorded gaps (timers are early by
    // 1 ms at most), where a replay that ignored the timing sends it within a ms or two.
    const recordedLast = exchange.response.chunks[exchange.response.chunks.length - 1]!.atMs;
    expect(recordedLast).toBeGreaterThan(100);
    expect(tookMs, `replayed in ${tookMs} ms; recorded: ${recordedLast} ms`).toBeGreaterThanOrEqual(
      recordedLast - exchange.response.chunks.length,
    );
  });

  test('speed 0 replays as fast as possible with the same bytes and boundaries', async () => {
    mock.setFaults({ delayMs: 15 });
    const { exchange } = await record();
    // Recorded 5 s apart, so that a replay keeping the gaps takes half a minute: a bound far
    // under that catches it, where a bound near the real time fails under load.
    const slow: MessagesExchange = {
      ...exchange,
      response: {
        ...exchange.response,
        chunks: exchange.response.chunks.map((c, i) => ({ ...c, atMs: c.atMs + i * 5_000 })),
      },
    };
    const replayed = await replay(slow, 0);
    expect(Buffer.concat(replayed.chunks.map((c) => c.bytes))).toEqual(
      Buffer.concat(exchange.response.chunks.map(bytesOfChunk)),
    );
    expect(exchange.response.chunks.length).toBeGreaterThanOrEqual(6);
    expect(replayed.chunks[replayed.chunks.length - 1]!.atMs).toBeLessThan(10_000);
  });

  test.each([429, 529])(
    'an HTTP %i error reply is recorded and replayed with its status, headers and body',
    async (status) => {
      mock.setFaults({ httpError: { status } });
      const { seen, exchange } = await record();
      expect(seen.status).toBe(status);
      expect(exchange.response.status).toBe(status);
      const type = status === 429 ? 'rate_limit_error' : 'overloaded_error';
      expect(validateFixture(exchange).recorded).toContain(`HTTP ${status} (${type})`);
      const replayed = await replay(exchange, 0);
      expect(replayed.status).toBe(status);
      expect(hex(replayed.chunks).join('')).toBe(recordedHex(exchange).join(''));
      if (status === 429) expect(replayed.headers['retry-after']).toBe('1');
    },
  );

  test('a mid-stream error event is recorded, reported by validate, and replayed', async () => {
    mock.setFaults({ errorEvent: { atFrame: 3 }, delayMs: 5 });
    const { exchange } = await record();
    const verdict = validateFixture(exchange);
    expect(verdict.ok).toBe(true);
    expect(verdict.recorded).toContain('an overloaded_error error event at frame 3');
    const replayed = await replay(exchange, 0);
    expect(Buffer.concat(replayed.chunks.map((c) => c.bytes))).toEqual(
      Buffer.concat(exchange.response.chunks.map(bytesOfChunk)),
    );
  });

  test('a stream cut by the upstream is recorded as truncated, and its replay is cut at the same byte', async () => {
    mock.setFaults({ disconnectAfterFrame: 3, delayMs: 5 });
    const { seen, exchange } = await record();
    expect(seen.end).toBe('cut');
    expect(exchange.response.end).toBe('truncated');
    const verdict = validateFixture(exchange);
    expect(verdict.ok).toBe(true);
    expect(verdict.recorded.join()).toMatch(/truncated stream: it ends after frame 2/);
    const replayed = await replay(exchange, 0);
    expect(replayed.end).toBe('cut');
    expect(Buffer.concat(replayed.chunks.map((c) => c.bytes))).toEqual(
      Buffer.concat(exchange.response.chunks.map(bytesOfChunk)),
    );
  });

  test('an unreachable upstream gets 502 with the API error body, and is recorded with a connect error', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const lonely = await startRecordingProxy({ upstream: `http://127.0.0.1:${port}` });
    try {
      const seen = await postRaw(lonely.url, request);
      await lonely.settled();
      expect(seen.status).toBe(502);
      const body = JSON.parse(Buffer.concat(seen.chunks.map((c) => c.bytes)).toString());
      expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect(lonely.exchanges[0]).toMatchObject({ response: { status: 502 }, error: { stage: 'connect' } });
    } finally {
      await lonely.close();
    }
  });
});

describe('record messages: secrets are never written', () => {
  test('the API key (header, bearer, pasted in the prompt) appears nowhere in the written files', async () => {
    const key = 'sk-ant-api03-TOPSECRET-0123456789abcdef';
    const body = { ...request, stream: false, messages: [{ role: 'user', content: `my key is ${key}` }] };
    const before = new Set(await readdir(dir));
    const seen = await postRaw(proxy.url, body, { 'x-api-key': key, authorization: `Bearer ${key}` });
    await proxy.settled();
    expect(seen.status).toBe(200);
    const written = (await readdir(dir)).filter((f) => !before.has(f));
    expect(written).toHaveLength(1);
    const bytes = await readFile(join(dir, written[0]!));
    expect(bytes.includes(key)).toBe(false);
    expect(bytes.includes('TOPSECRET')).toBe(false);
    const exchange = (await readFixtureFile(join(dir, written[0]!))) as MessagesExchange;
    expect(exchange.request.headers['x-api-key']).toBe('[redacted]');
    expect(exchange.request.headers.authorization).toBe('Bearer [redacted]');
    expect(exchange.request.body).toMatchObject({
      max_tokens: 64,
      messages: [{ content: 'my key is [redacted]' }],
    });
  });
});
