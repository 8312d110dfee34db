import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { NotExercised, TargetGone } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';
import { streamChecks } from '../../../src/suites/messages-service/checks/stream.js';
import { toolChecks } from '../../../src/suites/messages-service/checks/tools.js';
import {
  MAX_STREAM_ITEMS,
  RunawayGuard,
  type ServiceClient,
  sendStreamed,
} from '../../../src/suites/messages-service/http.js';
import { createMessagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import {
  json,
  messageDelta,
  messageStop,
  ping,
  stop,
  text,
  textStart,
  toolStart,
} from '../../protocol/messages/events.js';
import { MESSAGE_START, streamsCtx, TEXT_MESSAGE } from './stream-replies.js';

// A stream whose end is not the service's to be judged by: the service ended it with an
// error event (the spec leaves one within a stream not shown; the real API sends one), or
// wirecheck stopped reading at a limit of its own (frames kept, bytes) before the service
// ended it. Neither is an early end of the service's; what came before it is still judged.

const KEY_ENV = 'WIRECHECK_TEST_UNSEEN_ENDS_KEY';
const P = 'messages-service.';
const API_ERROR = { type: 'error', error: { type: 'api_error', message: 'Internal server error' } };
const HEAD = [MESSAGE_START, textStart(), text('hi')];
const TAIL = [stop(), messageDelta(), messageStop()];
const pings = (n: number) => Array.from({ length: n }, ping);
const sse = (events: readonly object[]) => events.map((e) => encodeEvent(e as never)).join('');

const servers: Server[] = [];
beforeAll(() => {
  process.env[KEY_ENV] = 'k';
});
afterAll(() => {
  delete process.env[KEY_ENV];
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/**
 * A service answering buffered requests with a text message, and a stream request with
 * `stream(n, asked)`: n counts stream requests, `asked` those of the same body before it.
 */
async function service(
  stream: (n: number, asked: number) => string,
): Promise<{ baseUrl: string; streams: () => number }> {
  let streams = 0;
  const bodies = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      if (!/"stream":true/.test(body)) {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_1' });
        res.end(JSON.stringify(TEXT_MESSAGE));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1' });
      const asked = bodies.get(body) ?? 0;
      bodies.set(body, asked + 1);
      res.end(stream(streams++, asked));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, streams: () => streams };
}

function clientOf(baseUrl: string, extra: Partial<ServiceClient> = {}): ServiceClient {
  return { baseUrl, apiKey: 'k', requestTimeoutMs: 20_000, signal: new AbortController().signal, ...extra };
}

const BODY = JSON.stringify({ model: 'm', max_tokens: 8, messages: [], stream: true });
const env = { signal: new AbortController().signal } as never;
const checkOf = (id: string) => [...streamChecks, ...toolChecks].find((c) => c.id === `${P}${id}`)!;
const THE_END = ['stream.order', 'stream.message-delta', 'stream.reduces-to-message'];
const FRAME_BY_FRAME = ['stream.frame-format', 'stream.message-start', 'stream.ping-shape'];

describe('messages-service: a stream wirecheck stops reading at its own limit is not ended early by the service', () => {
  test(`past ${MAX_STREAM_ITEMS} frames (pings inside the first text block): the checks of the end are not exercised, naming the limit; the frames read are judged`, async () => {
    const { baseUrl } = await service(() => sse([...HEAD, ...pings(MAX_STREAM_ITEMS + 50), ...TAIL]));
    const reply = await sendStreamed(clientOf(baseUrl), BODY);
    expect(reply.frames).toHaveLength(MAX_STREAM_ITEMS);
    const ctx = streamsCtx(reply, reply);
    for (const id of THE_END) {
      const outcome = checkOf(id).run(ctx, env);
      await expect(outcome, id).rejects.toThrow(NotExercised);
      await expect(outcome, id).rejects.toThrow(
        /cut by wirecheck after 100000 frames, before the service ended it/,
      );
    }
    await expect(checkOf('stream.frame-format').run(ctx, env)).resolves.toBeUndefined();
    expect(reply.cutByWirecheck).toMatch(/went past 100000 frames \(MAX_STREAM_ITEMS\)/);
    // A hundred thousand frames read and judged four times: seconds on a loaded machine.
  }, 60_000);

  test('past the byte cap (maxBodyBytes), cut mid-frame: not exercised, no unclosed frame, and the runaway is still counted', async () => {
    const { baseUrl } = await service(() => sse([...HEAD, ...pings(3000), ...TAIL]));
    const runaway = new RunawayGuard(1);
    const reply = await sendStreamed(clientOf(baseUrl, { maxBodyBytes: 64 * 1024, runaway }), BODY);
    const ctx = streamsCtx(reply, reply);
    for (const id of THE_END) {
      await expect(checkOf(id).run(ctx, env), id).rejects.toThrow(
        /cut by wirecheck after \d+ frames, before the service ended it \(the body went past the 65536-byte limit/,
      );
    }
    for (const id of FRAME_BY_FRAME) await expect(checkOf(id).run(ctx, env), id).resolves.toBeUndefined();
    expect(reply.unterminated).toBe('');
    expect(reply.cutByWirecheck).toMatch(/went past the 65536-byte limit of one reply \(maxBodyBytes/);
    // A reply past its bytes is a runaway as before: the next request would end the run.
    expect(() => runaway.check()).toThrow(TargetGone);
  });

  test('a fault seen before the cap still fails: a delta before its block started', async () => {
    const { baseUrl } = await service(() => sse([MESSAGE_START, text('hi'), ...pings(3000), ...TAIL]));
    const reply = await sendStreamed(clientOf(baseUrl, { maxBodyBytes: 64 * 1024 }), BODY);
    const ctx = streamsCtx(reply, reply);
    for (const id of ['stream.order', 'stream.reduces-to-message']) {
      await expect(checkOf(id).run(ctx, env), id).rejects.toThrow(
        /at text stream, frame 1 «event: content_block_delta/,
      );
    }
  });

  test('tools.partial-json judges a tool input closed before the cut, and not one the cut left open', async () => {
    const block = [toolStart(), json('{"command":'), json(' "ls"}'), stop()];
    const closed = await service(() => sse([MESSAGE_START, ...block, ...pings(3000), ...TAIL]));
    const cut = await sendStreamed(clientOf(closed.baseUrl, { maxBodyBytes: 64 * 1024 }), BODY);
    await expect(checkOf('tools.partial-json').run(streamsCtx(cut, cut), env)).resolves.toBeUndefined();
    const open = await service(() => sse([MESSAGE_START, ...block.slice(0, 2), ...pings(3000), ...TAIL]));
    const openCut = await sendStreamed(clientOf(open.baseUrl, { maxBodyBytes: 64 * 1024 }), BODY);
    await expect(checkOf('tools.partial-json').run(streamsCtx(openCut, openCut), env)).rejects.toThrow(
      /^a tool input was still open where wirecheck stopped reading, after \d+ frames \(the body went past the 65536-byte limit/,
    );
  });

  test('a whole stream beside one wirecheck cut is judged, and passes', async () => {
    const { baseUrl } = await service((n) =>
      sse(n === 0 ? [...HEAD, ...pings(3000), ...TAIL] : [...HEAD, ...TAIL]),
    );
    const client = clientOf(baseUrl, { maxBodyBytes: 64 * 1024 });
    const ctx = streamsCtx(await sendStreamed(client, BODY), await sendStreamed(client, BODY));
    for (const id of [...THE_END, ...FRAME_BY_FRAME]) {
      await expect(checkOf(id).run(ctx, env), id).resolves.toBeUndefined();
    }
  });
});

describe('messages-service: requests.valid-accepted and a stream whose end is not the service fault', () => {
  const valid = `${P}requests.valid-accepted`;
  const run = (baseUrl: string, options: Parameters<typeof createMessagesServiceSuite>[0] = {}) =>
    runSuite(
      createMessagesServiceSuite({ abortSettleMs: 0, ...options }),
      { baseUrl, apiKeyEnv: KEY_ENV },
      { seed: 20261101, runs: 10, only: [valid] },
    );

  test('a stream the service ended with an api_error event is sent again: the whole one that follows is judged, and passes', async () => {
    // Each body's first stream ends with the error (a ping after it), its second is whole.
    const { baseUrl, streams } = await service((_, asked) =>
      sse(asked === 0 ? [...HEAD, API_ERROR, ping()] : [...HEAD, ...TAIL]),
    );
    const { checks } = await run(baseUrl);
    expect(checks[0], checks[0]!.message).toMatchObject({ id: valid, status: 'pass' });
    expect(streams()).toBeGreaterThan(0);
  });

  test('a stream ended by an invalid_request_error event refused the valid request: it fails, as a 400 would', async () => {
    const refusal = { type: 'error', error: { type: 'invalid_request_error', message: 'no' } };
    const { baseUrl } = await service(() => sse([...HEAD, refusal, ping()]));
    const { checks } = await run(baseUrl);
    expect(checks[0]).toMatchObject({ id: valid, status: 'fail' });
    expect(checks[0]!.message).toMatch(/an error event invalid_request_error: no/);
  });

  test('a stream wirecheck cut at its byte cap is not exercised, naming the cap (and not sent again)', async () => {
    const { baseUrl, streams } = await service(() => sse([...HEAD, ...pings(3000), ...TAIL]));
    const { checks } = await run(baseUrl, { maxBodyBytes: 64 * 1024, maxRunawayReplies: 10 });
    expect(checks[0]).toMatchObject({ id: valid, status: 'skip', skipKind: 'not-exercised' });
    expect(checks[0]!.message).toMatch(
      /^the stream answering a valid request was cut by wirecheck after \d+ frames, before the service ended it \(the body went past the 65536-byte limit .*\): its end could not be judged/,
    );
    expect(streams()).toBe(1);
  });
});
