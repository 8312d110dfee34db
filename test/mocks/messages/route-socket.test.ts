import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type FaultPlan,
  type MockMessagesService,
  type Reply,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { decodeChunks, KEY, messagesBody, readChunks, SAMPLE, SAMPLE_SPLITS } from './helpers.js';

let service: MockMessagesService;
const sampleReply: Reply = { kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS };

beforeAll(async () => {
  service = await startMockMessagesService({ scenario: () => sampleReply });
});
afterAll(async () => {
  await service.close();
});
afterEach(() => {
  service.setFaults(undefined);
  service.setScenario(() => sampleReply);
  service.journal.clear();
});

function postStream(signal?: AbortSignal): Promise<Response> {
  return fetch(`${service.url}/v1/messages`, {
    method: 'POST',
    headers: KEY,
    body: JSON.stringify(messagesBody('hi', { stream: true })),
    ...(signal && { signal }),
  });
}

/** Read until the body ends or is cut; the chunks received either way. */
async function readUntilEnd(response: Response): Promise<{ chunks: Uint8Array[]; error: unknown }> {
  const chunks: Uint8Array[] = [];
  try {
    for await (const c of response.body as AsyncIterable<Uint8Array>) chunks.push(c);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

test('the url is http://127.0.0.1:PORT without a trailing slash', () => {
  expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

describe('survivable faults reduce to the scripted message over a real socket', () => {
  const faults: [string, FaultPlan][] = [
    ['random re-chunking', { chunking: { mode: 'random', minBytes: 1, maxBytes: 7 } }],
    ['fixed 1-byte chunks', { chunking: { mode: 'fixed', size: 1 } }],
    ['cuts inside UTF-8 characters', { splitUtf8: true, chunking: { mode: 'random' } }],
    ['CRLF, cut between CR and LF', { lineEnding: 'crlf', splitCrLf: true, chunking: { mode: 'random' } }],
    ['lone CR line endings', { lineEnding: 'cr', chunking: { mode: 'random' } }],
    ['pings, one before message_start', { pings: { at: [0, 2], rate: 0.3 } }],
    ['comments', { comments: { at: [0, 3], rate: 0.3 } }],
    ['per-frame delays', { delayMs: 3 }],
    ['a delay schedule', { delayMs: [0, 15, 0, 0, 15] }],
    ['a stall with keep-alive pings', { stall: { afterFrame: 3, ms: 60 }, keepAliveMs: 15 }],
    ['BOM, multi-line data, id lines', { bom: true, multiLineData: true, idLines: true }],
    [
      'unknown events and a garbage line',
      { unknownEvents: { at: [1, 4] }, malformed: [{ atFrame: 2, kind: 'garbage-line' }] },
    ],
  ];
  test.each(faults)('%s', async (_name, plan) => {
    service.setFaults({ ...plan, seed: 42 });
    const response = await postStream();
    expect(response.status).toBe(200);
    const decoded = decodeChunks(await readChunks(response));
    expect(decoded.error).toBeUndefined();
    expect(decoded.message).toEqual(SAMPLE);
    const entry = await service.journal.waitFor((e) => e.outcome !== 'pending', 2000);
    expect(entry).toMatchObject({
      outcome: 'completed',
      framesWritten: 17,
      clientAborted: false,
      stream: true,
    });
  });
});

describe('cuts and aborts', () => {
  test('disconnect after frame N delivers the N frames first, then cuts the connection', async () => {
    // Big frames: the earlier writes overflow the socket buffers, so a cut that did not
    // wait for them to drain would lose frames.
    const text = 'x'.repeat(4_000_000);
    const splits = [Array.from({ length: 19 }, (_, i) => (i + 1) * 200_000)];
    service.setScenario(() => ({
      kind: 'message',
      message: { ...SAMPLE, content: [{ type: 'text', text }] },
      splits,
    }));
    service.setFaults({ disconnectAfterFrame: 15 });
    const { chunks, error } = await readUntilEnd(await postStream());
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('terminated');
    const decoded = decodeChunks(chunks);
    expect(decoded.frames).toHaveLength(15);
    expect(decoded.unterminated).toBe('');
    const entry = await service.journal.waitFor((e) => e.outcome !== 'pending', 2000);
    expect(entry).toMatchObject({ outcome: 'disconnected', framesWritten: 15, clientAborted: false });
  });

  test('disconnect after frame 0 still sends the headers: the client sees a cut, not a connection error', async () => {
    service.setFaults({ disconnectAfterFrame: 0 });
    const response = await postStream();
    expect(response.status).toBe(200);
    const { chunks, error } = await readUntilEnd(response);
    expect(chunks).toEqual([]);
    expect((error as Error).message).toBe('terminated');
  });

  test('a client that aborts mid-stream ends generation: the journal shows the frame, nothing more is written', async () => {
    service.setFaults({ delayMs: 25 });
    const controller = new AbortController();
    const response = await postStream(controller.signal);
    const chunks: Uint8Array[] = [];
    try {
      for await (const c of response.body as AsyncIterable<Uint8Array>) {
        chunks.push(c);
        if (decodeChunks(chunks).frames.length >= 3) controller.abort();
      }
    } catch {
      // the abort rejects the read
    }
    const entry = await service.journal.waitFor((e) => e.clientAborted, 2000);
    expect(entry.outcome).toBe('client-aborted');
    expect(entry.abortedAtFrame).toBeGreaterThanOrEqual(3);
    expect(entry.abortedAtFrame).toBeLessThan(17);
    const { framesWritten, bytesWritten } = entry;
    await new Promise((r) => setTimeout(r, 120));
    expect(entry.framesWritten).toBe(framesWritten);
    expect(entry.bytesWritten).toBe(bytesWritten);
    expect(entry.framesWritten).toBe(entry.abortedAtFrame);
  });

  test('a stall without end sends keep-alive pings until the client leaves', async () => {
    service.setFaults({ stall: { afterFrame: 2 }, keepAliveMs: 10 });
    const controller = new AbortController();
    const response = await postStream(controller.signal);
    const chunks: Uint8Array[] = [];
    try {
      for await (const c of response.body as AsyncIterable<Uint8Array>) {
        chunks.push(c);
        if (decodeChunks(chunks).frames.filter((f) => f.event === 'ping').length >= 3) controller.abort();
      }
    } catch {
      // aborted
    }
    const frames = decodeChunks(chunks).frames;
    expect(frames.slice(0, 2).map((f) => f.event)).toEqual(['message_start', 'content_block_start']);
    expect(frames.slice(2).every((f) => f.event === 'ping')).toBe(true);
    const entry = await service.journal.waitFor((e) => e.clientAborted, 2000);
    expect(entry).toMatchObject({ framesWritten: 2, abortedAtFrame: 2 });
  });

  test("the service's pingIntervalMs sends keep-alive pings during a long pause", async () => {
    const own = await startMockMessagesService({
      scenario: () => sampleReply,
      pingIntervalMs: 10,
      faults: { stall: { afterFrame: 1, ms: 80 } },
    });
    const response = await fetch(`${own.url}/v1/messages`, {
      method: 'POST',
      headers: KEY,
      body: JSON.stringify(messagesBody('hi', { stream: true })),
    });
    const decoded = decodeChunks(await readChunks(response));
    await own.close();
    expect(decoded.frames[1]?.event).toBe('ping');
    expect(decoded.frames.filter((f) => f.event === 'ping').length).toBeGreaterThanOrEqual(3);
    expect(decoded.message).toEqual(SAMPLE);
  });

  test('closing the service cuts a stream stalled forever and records it as server-closed', async () => {
    const own = await startMockMessagesService({
      scenario: () => sampleReply,
      faults: { stall: { afterFrame: 1 } },
    });
    const response = await fetch(`${own.url}/v1/messages`, {
      method: 'POST',
      headers: KEY,
      body: JSON.stringify(messagesBody('hi', { stream: true })),
    });
    const reading = readUntilEnd(response);
    await own.journal.waitFor((e) => e.framesWritten === 1, 2000);
    await own.close();
    expect((await reading).error).toBeDefined();
    expect(own.journal.entries()[0]).toMatchObject({ outcome: 'server-closed', clientAborted: false });
  });
});

describe('errors around the stream', () => {
  test('an error event after two frames surfaces as the stream error and is journaled', async () => {
    service.setFaults({ errorEvent: { atFrame: 2 } });
    const response = await postStream();
    const decoded = decodeChunks(await readChunks(response));
    const last = decoded.frames.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: response.headers.get('request-id'),
    });
    const entry = await service.journal.waitFor((e) => e.outcome !== 'pending', 2000);
    expect(entry).toMatchObject({ errorType: 'overloaded_error', framesWritten: 2, outcome: 'completed' });
  });

  test('headersDelayMs holds the response headers back', async () => {
    service.setFaults({ headersDelayMs: 80 });
    const started = performance.now();
    const response = await postStream();
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
    expect(decodeChunks(await readChunks(response)).message).toEqual(SAMPLE);
  });

  test('a raw reply is streamed frame by frame as given', async () => {
    service.setScenario(() => ({
      kind: 'raw',
      frames: [{ comment: 'hi' }, { event: 'odd', data: 'not json' }, { type: 'ping' }],
    }));
    const response = await postStream();
    const text = Buffer.concat(await readChunks(response)).toString();
    expect(text).toBe(': hi\n\nevent: odd\ndata: not json\n\nevent: ping\ndata: {"type":"ping"}\n\n');
  });
});

describe('volume', () => {
  test('a stream of 100,000 deltas arrives whole and reduces to the message', async () => {
    const text = 'abcdefghij'.repeat(100_000);
    const splits = [Array.from({ length: 99_999 }, (_, i) => (i + 1) * 10)];
    const message = {
      ...SAMPLE,
      content: [{ type: 'text' as const, text }],
      stop_reason: 'end_turn' as const,
    };
    service.setScenario(() => ({ kind: 'message', message, splits }));
    const decoded = decodeChunks(await readChunks(await postStream()));
    expect(decoded.frames).toHaveLength(100_005);
    expect(decoded.message).toEqual(message);
  });

  test('behind a reader that stops, the server waits for drain instead of buffering the stream', async () => {
    const text = 'abcdefghij'.repeat(300_000);
    const splits = [Array.from({ length: 299_999 }, (_, i) => (i + 1) * 10)];
    service.setScenario(() => ({
      kind: 'message',
      message: { ...SAMPLE, content: [{ type: 'text', text }] },
      splits,
    }));
    const controller = new AbortController();
    const response = await postStream(controller.signal);
    const entry = await service.journal.waitFor((e) => e.bytesWritten > 0, 2000);
    await new Promise((r) => setTimeout(r, 300));
    const total = 300_000 * 110;
    expect(entry.bytesWritten).toBeLessThan(total / 2);
    controller.abort();
    await response.body?.cancel().catch(() => {});
    await service.journal.waitFor((e) => e.outcome !== 'pending', 2000);
  });

  test('50 concurrent streams are each served whole', async () => {
    service.setFaults({ chunking: { mode: 'random', maxBytes: 64 } });
    const results = await Promise.all(
      Array.from({ length: 50 }, async () => decodeChunks(await readChunks(await postStream())).message),
    );
    expect(results.every((m) => JSON.stringify(m) === JSON.stringify(SAMPLE))).toBe(true);
  });
});

describe('malformed HTTP', () => {
  function rawRequest(text: string): Promise<string> {
    const { port } = new URL(service.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let out = '';
      socket.on('data', (d) => {
        out += d.toString();
      });
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
      socket.end(text);
    });
  }

  test('a garbled request line gets 400 with the real error body, and the service keeps serving', async () => {
    const out = await rawRequest('NOT HTTP AT ALL\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.request_id).toMatch(/^req_/);
    expect((await postStream()).status).toBe(200);
  });

  test('oversized headers get 431 with the real error body', async () => {
    const out = await rawRequest(
      `POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(70_000)}\r\n\r\n`,
    );
    expect(out).toMatch(/^HTTP\/1\.1 431 /);
    expect(out).toContain('"type":"error"');
  });
});
