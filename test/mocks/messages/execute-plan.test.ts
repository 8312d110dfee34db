import { EventEmitter } from 'node:events';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  ConnectionWatch,
  executePlan,
  type StreamProgress,
} from '../../../src/mocks/messages/execute-plan.js';
import {
  type MockMessagesService,
  type StreamStep,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { eventsOfMessage, type Message } from '../../../src/protocol/messages/index.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';
import { KEY, messagesBody, SAMPLE } from './helpers.js';

// A long message with every kind of text a quoted piece can hold, cut into many deltas:
// its stream is over 1 MB, so the mock builds it in slabs it reuses once written.
const WORDS = [
  'plain ',
  'say "hi" ',
  'a\\b ',
  'tab\t',
  'nl\n',
  'ünï ',
  '你好 ',
  '👋🏽 ',
  '\ud83d ',
  '\u2028 ',
];
const TEXT = Array.from({ length: 12_000 }, (_, i) => WORDS[i % WORDS.length]).join('');
const SPLITS = [Array.from({ length: 9_000 }, (_, i) => 1 + Math.floor((i * TEXT.length) / 9_000))];
const message = (n: number): Message => ({
  ...SAMPLE,
  id: `msg_${n}`,
  content: [{ type: 'text', text: TEXT }],
});
const expected = (n: number) =>
  Buffer.from(
    eventsOfMessage(message(n), SPLITS)
      .map((e) => encodeEvent(e))
      .join(''),
  );

let served = 0;
const services = new Map<number, MockMessagesService>();
beforeAll(async () => {
  // A new message object per request: nothing for the stream cache to reuse. 64 frames
  // a write (the default), and writes larger than a slab, which the socket cannot take
  // at once: their memory must not be built on before the OS has the bytes.
  for (const framesPerWrite of [64, 4000]) {
    const service = await startMockMessagesService({
      framesPerWrite,
      scenario: () => ({ kind: 'message', message: message(served++ % 4), splits: SPLITS }),
    });
    services.set(framesPerWrite, service);
  }
});
afterAll(async () => {
  await Promise.all([...services.values()].map((s) => s.close()));
});

/** POST a stream request and read the body, pausing `pauseMs` every `every` chunks (a slow reader). */
function readBody(service: { url: string }, pauseMs: number, every: number): Promise<Buffer> {
  const body = JSON.stringify(messagesBody('hi', { stream: true }));
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}/v1/messages`, {
      method: 'POST',
      headers: { ...KEY, 'content-length': Buffer.byteLength(body) },
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no body within 10 s')));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let count = 0;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (pauseMs > 0 && ++count % every === 0) {
          res.pause();
          setTimeout(() => res.resume(), pauseMs);
        }
      });
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    });
    req.end(body);
  });
}

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && a.equals(b);

describe.each([64, 4000])('%i frames per write', (framesPerWrite) => {
  const service = () => services.get(framesPerWrite)!;

  test('a stream built in reused memory arrives byte for byte, behind a slow reader', async () => {
    served = 0;
    const body = await readBody(service(), 2, 8);
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(sameBytes(body, expected(0))).toBe(true);
  });

  test('concurrent streams, each in its own memory, arrive byte for byte', async () => {
    served = 0;
    const bodies = await Promise.all([
      readBody(service(), 1, 5),
      readBody(service(), 0, 1),
      readBody(service(), 3, 16),
      readBody(service(), 0, 1),
    ]);
    // Which request got which message depends on arrival order: match by content.
    const want = [0, 1, 2, 3].map(expected);
    for (const body of bodies) expect(want.some((w) => sameBytes(body, w))).toBe(true);
  });
});

/**
 * Writes of `size` bytes, each filled with its own byte, from a pool that reuses a
 * buffer as soon as its write is reported written: if the report came early, a buffer
 * still queued on the socket would be overwritten and the body would show it.
 */
function* reusingWrites(count: number, size: number): Generator<StreamStep> {
  const free: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const data = free.pop() ?? Buffer.allocUnsafe(size);
    data.fill(i % 251);
    yield { kind: 'write', data, framesDone: i + 1, written: { reuse: () => free.push(data) } };
  }
  yield { kind: 'end' };
}

test('a write is reported written only once the OS has its bytes: its memory is reused safely', async () => {
  const count = 600;
  const size = 8 * 1024;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const progress: StreamProgress = { framesWritten: 0, bytesWritten: 0 };
    void executePlan(res, reusingWrites(count, size), new ConnectionWatch(res, progress), progress);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const body = await readBody({ url: `http://127.0.0.1:${port}` }, 2, 4);
    const want = Buffer.concat(Array.from({ length: count }, (_, i) => Buffer.alloc(size, i % 251)));
    expect(body.length).toBe(want.length);
    expect(sameBytes(body, want)).toBe(true);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a per-frame delay schedule holds on average: a timer that fires late is made up by the next pauses', async () => {
  // A fake clock and a watch whose every sleep overshoots by 4 ms, as real timers do.
  let clock = 0;
  const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
  try {
    const writes: number[] = [];
    const res = Object.assign(new EventEmitter(), {
      write: () => {
        writes.push(clock);
        return true;
      },
      end: (data?: unknown) => {
        if (data !== undefined) writes.push(clock);
      },
      flushHeaders: () => {},
      writableFinished: false,
    }) as unknown as ServerResponse;
    const progress: StreamProgress = { framesWritten: 0, bytesWritten: 0 };
    const watch = new ConnectionWatch(res, progress);
    watch.sleep = async (ms: number) => {
      clock += ms + 4;
    };
    const frame = (n: number): StreamStep => ({ kind: 'write', data: `f${n}`, framesDone: n });
    const steps: StreamStep[] = [frame(1)];
    for (let n = 2; n <= 6; n++) steps.push({ kind: 'wait', ms: 10 }, frame(n));
    steps.push({ kind: 'end' });
    await executePlan(res, steps, watch, progress);
    // Scheduled at 0, 10, 20, ...: each frame is at most one overshoot late, never later and later.
    expect(writes).toEqual([0, 14, 24, 34, 44, 54]);
  } finally {
    now.mockRestore();
  }
});
