import { readFile } from 'node:fs/promises';
import { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  BUNDLED_LIBRARY_DIR,
  bodyOfChunks,
  locateFrames,
  type MessagesExchange,
  parseFixtureText,
} from '../../../src/fixtures/index.js';
import {
  type MockMessagesService,
  planReplay,
  recordingScenario,
  type StreamStep,
  startMockMessagesService,
  unsupportedReplayFaults,
} from '../../../src/mocks/messages/index.js';
import { accumulate } from '../../../src/protocol/messages/index.js';
import { decodeFrames } from '../../../src/protocol/sse/index.js';

async function library(name: string): Promise<MessagesExchange> {
  return parseFixtureText(
    await readFile(join(BUNDLED_LIBRARY_DIR, `${name}.json`), 'utf8'),
  ) as MessagesExchange;
}

const written = (steps: StreamStep[]) =>
  Buffer.concat(steps.flatMap((s) => (s.kind === 'write' ? [Buffer.from(s.data)] : [])));
const waits = (steps: StreamStep[]) => steps.flatMap((s) => (s.kind === 'wait' ? [s.ms] : []));

describe('replay plan: a recording served as recorded', () => {
  test('one write per recorded chunk, each after the recorded gap divided by the speed', async () => {
    const text = await library('text');
    const at1 = planReplay(text.response, undefined, 1);
    const at2 = planReplay(text.response, undefined, 1, { speed: 2 });
    expect(at1.steps.filter((s) => s.kind === 'write')).toHaveLength(text.response.chunks.length);
    expect(written(at1.steps)).toEqual(bodyOfChunks(text.response.chunks));
    expect(waits(at2.steps)).toEqual(waits(at1.steps).map((ms) => ms / 2));
    expect(at2.headersDelayMs).toBe(text.response.headersAtMs / 2);
    expect(at1.steps.at(-1)).toEqual({ kind: 'end' });
  });

  test('speed 0 waits for nothing but flushes between chunks, so boundaries stay separate writes', async () => {
    const { steps, headersDelayMs } = planReplay((await library('text')).response, undefined, 1, {
      speed: 0,
    });
    expect(headersDelayMs).toBe(0);
    expect(waits(steps)).toEqual([]);
    expect(steps.filter((s) => s.kind === 'flush').length).toBe(
      steps.filter((s) => s.kind === 'write').length - 1,
    );
  });

  test('a truncated recording ends with a cut, and its content-length (if any) is not sent', async () => {
    const { steps } = planReplay((await library('truncated-stream')).response, undefined, 1);
    expect(steps.at(-1)).toEqual({ kind: 'disconnect' });
  });

  test('faults layer on recorded frames: disconnect after frame N cuts at the end of recorded frame N', async () => {
    const recording = await library('tool-use-one');
    const { steps } = planReplay(recording.response, { disconnectAfterFrame: 4 }, 1);
    const frameEnds = locateFrames(bodyOfChunks(recording.response.chunks)).frames.map((f) => f.end);
    expect(written(steps).length).toBe(frameEnds[3]);
    expect(steps.at(-1)).toEqual({ kind: 'disconnect' });
  });

  test('an error event after frame N replaces the rest of the recording', async () => {
    const { steps } = planReplay((await library('text')).response, { errorEvent: { atFrame: 3 } }, 1, {
      requestId: 'req_x',
    });
    const text = written(steps).toString();
    expect(text).toMatch(
      /event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"Overloaded"\},"request_id":"req_x"\}\n\n$/,
    );
    expect(locateFrames(written(steps)).frames).toHaveLength(4);
  });

  test('re-chunking faults cut the recorded bytes without changing them', async () => {
    const recording = await library('utf8-split-chunks');
    const { steps } = planReplay(recording.response, { chunking: { mode: 'fixed', size: 5 } }, 1);
    expect(written(steps)).toEqual(bodyOfChunks(recording.response.chunks));
    expect(steps.every((s) => s.kind !== 'write' || s.data.length <= 5)).toBe(true);
  });

  test('faults that shape scripted frames are named as meaningless on a recording', () => {
    expect(
      unsupportedReplayFaults({ lineEnding: 'crlf', disconnectAfterFrame: 2, pings: { rate: 1 } }),
    ).toEqual(['lineEnding', 'pings']);
  });
});

/** A valid request to the mock, streamed unless told otherwise. */
const post = (url: string, stream = true) =>
  fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify({ model: 'm', max_tokens: 8, stream, messages: [{ role: 'user', content: 'hi' }] }),
    // A mock that never answers fails the test here, not at the test's timeout.
    signal: AbortSignal.timeout(5_000),
  });

describe('replay through the mock service', () => {
  let service: MockMessagesService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  test('serves the recorded status, headers and body, recordings in turn', async () => {
    const [text, overloaded] = [await library('text'), await library('http-529-overloaded')];
    service = await startMockMessagesService({
      scenario: recordingScenario([text, overloaded], { speed: 0 }),
    });
    const first = await post(service.url);
    expect(first.status).toBe(200);
    expect(first.headers.get('request-id')).toBe(text.response.headers['request-id']);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(bodyOfChunks(text.response.chunks));
    const second = await post(service.url);
    expect(second.status).toBe(529);
    expect(await second.text()).toBe(bodyOfChunks(overloaded.response.chunks).toString());
  });

  test('a recording the mock cannot go on writing is cut, and the journal says why', async () => {
    const text = await library('text');
    service = await startMockMessagesService({ scenario: recordingScenario([text], { speed: 0 }) });
    // The first body write of the mock's own response throws, as a broken socket's may.
    const write = vi.spyOn(ServerResponse.prototype, 'write').mockImplementationOnce(() => {
      throw new Error('the socket broke');
    });
    try {
      const res = await post(service.url);
      expect(res.status).toBe(200);
      await expect(res.arrayBuffer()).rejects.toThrow();
    } finally {
      write.mockRestore();
    }
    const entry = service.journal.entries()[0]!;
    expect(entry.outcome).toBe('disconnected');
    expect(entry.streamError).toBe('the mock could not replay the recorded response: the socket broke');
  });

  test('a recording with a header Node cannot send gets 500 api_error naming it (the request hung)', async () => {
    const text = await library('text');
    const broken = {
      ...text,
      response: { ...text.response, headers: { ...text.response.headers, 'x-odd': '€' } },
    };
    service = await startMockMessagesService({ scenario: recordingScenario([broken], { speed: 0 }) });
    const res = await post(service.url);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('api_error');
    expect(body.error.message).toMatch(
      /^the mock's scenario returned a recorded response whose header "x-odd" cannot be sent: Invalid character/,
    );
  });

  test('an HTTP error fault is served instead of the recording', async () => {
    service = await startMockMessagesService({
      scenario: recordingScenario([await library('text')], {
        speed: 0,
        faults: { httpError: { status: 429 } },
      }),
    });
    expect((await post(service.url)).status).toBe(429);
  });
});

describe('replay: a whole message recorded in the other mode than the request asks for is converted', () => {
  let service: MockMessagesService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  const messageOfStream = (body: Uint8Array | string) =>
    accumulate(decodeFrames([body]).frames.map((f) => JSON.parse(f.data)));

  // The spec: `stream` absent or false gets one JSON message, `stream: true` an event stream.
  for (const name of ['text', 'tool-use-one']) {
    test(`a streamed recording (${name}) answers a buffered request with its message as JSON`, async () => {
      const recording = await library(name);
      service = await startMockMessagesService({ scenario: recordingScenario([recording], { speed: 0 }) });
      const res = await post(service.url, false);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(messageOfStream(bodyOfChunks(recording.response.chunks)));
    });
  }

  test('a streamed recording that an error event ends answers a buffered request with that error status', async () => {
    service = await startMockMessagesService({
      scenario: recordingScenario([await library('overloaded-error-event')], { speed: 0 }),
    });
    const res = await post(service.url, false);
    expect(res.status).toBe(529);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('overloaded_error');
  });

  test('a JSON recording answers a streaming request with the events of its message', async () => {
    const text = await library('text');
    const message = messageOfStream(bodyOfChunks(text.response.chunks));
    const json: MessagesExchange = {
      ...text,
      response: {
        ...text.response,
        headers: { 'content-type': 'application/json' },
        chunks: [{ atMs: 1, text: JSON.stringify(message) }],
      },
    };
    service = await startMockMessagesService({ scenario: recordingScenario([json], { speed: 0 }) });
    const res = await post(service.url, true);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(messageOfStream(new Uint8Array(await res.arrayBuffer()))).toEqual(message);
    // In its own mode it is served as recorded, byte for byte.
    expect(await (await post(service.url, false)).text()).toBe(JSON.stringify(message));
  });

  test('a stream recorded cut short cannot be folded: it is served as recorded', async () => {
    const recording = await library('truncated-stream');
    service = await startMockMessagesService({ scenario: recordingScenario([recording], { speed: 0 }) });
    const res = await post(service.url, false);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await res.arrayBuffer().catch(() => undefined);
  });
});
