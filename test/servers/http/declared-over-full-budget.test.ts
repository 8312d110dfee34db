import { afterEach, describe, expect, test } from 'vitest';
import { startMockMessagesService } from '../../../src/mocks/messages/index.js';
import type { MockHttpInternals } from '../../../src/mocks/tools/http-common.js';
import {
  type MockToolServerOptions,
  startMockToolServer,
  startStreamableHttpMockToolServer,
} from '../../../src/mocks/tools/index.js';
import { startRecordingProxy } from '../../../src/recording/index.js';
import { startSseRecordingProxy } from '../../../src/recording/tools/sse.js';
import { startStreamableHttpRecordingProxy } from '../../../src/recording/tools/streamable-http.js';
import { startStreamableToolServer, startToolServer } from '../../../src/servers/tools/index.js';
import { type RawPost, rawPost, watchRequests, within } from './raw-post.js';

// A body declared (Content-Length) over the body limit is refused 413 at once, whatever the
// budget of bodies in flight holds: the budget's refusal (503, the messages mock's 529) says
// "try again later", which is wrong for a body that no retry can make fit. Each server here
// has a body limit of 1000 and a budget of 4000, held whole by four POSTs that declared 1000
// bytes and trickle them.

const cleanup: (() => unknown)[] = [];
const sockets: RawPost[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.socket.destroy();
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The URL of a server just started, closed after the test. */
async function started(server: Promise<{ readonly url: string; close(): Promise<void> }>): Promise<string> {
  const s = await server;
  cleanup.push(() => s.close());
  return s.url;
}

function held(p: RawPost): RawPost {
  sockets.push(p);
  return p;
}

/**
 * Where the recorders relay to: nothing listens there, and nothing is relayed, since every
 * request here is refused before its body is read.
 */
const UPSTREAM = 'http://127.0.0.1:9';

const JSON_TYPE = 'content-type: application/json';
const BOTH = 'accept: application/json, text/event-stream';
const MESSAGES_HEADERS = [JSON_TYPE, 'x-api-key: k', 'anthropic-version: 2023-06-01'];

interface Target {
  readonly name: string;
  /** The server's URL, with a body limit of 1000 (and so a budget of 4000). */
  start(): Promise<string>;
  readonly path: string;
  readonly headers: readonly string[];
  /** What the 413 says. */
  readonly tooLarge: RegExp;
}

type MockOptions = MockToolServerOptions & MockHttpInternals;

const targets: readonly Target[] = [
  {
    name: 'the reference tool server over SSE',
    start: () => started(startToolServer({ keepAliveMs: 0, bodyLimit: 1000 })),
    path: '/messages?sessionId=00000000-0000-0000-0000-000000000000',
    headers: [JSON_TYPE],
    tooLarge: /\{"error":"Request body is too large"/,
  },
  {
    name: 'the reference tool server over Streamable HTTP',
    start: () => started(startStreamableToolServer({ bodyLimit: 1000 })),
    path: '/mcp',
    headers: [JSON_TYPE, BOTH],
    tooLarge: /Payload Too Large: the body is 2000 bytes, over the limit of 1000/,
  },
  {
    name: 'the mock tool server over SSE',
    start: () => started(startMockToolServer({}, { bodyLimit: 1000 } satisfies MockOptions)),
    path: '/messages?sessionId=x',
    headers: [JSON_TYPE],
    tooLarge: /\{"error":"Payload Too Large: the body is 2000 bytes, over the limit of 1000"/,
  },
  {
    name: 'the mock tool server over Streamable HTTP',
    start: () => started(startStreamableHttpMockToolServer({}, { bodyLimit: 1000 } satisfies MockOptions)),
    path: '/mcp',
    headers: [JSON_TYPE, BOTH],
    tooLarge: /"code":-32000,"message":"Payload Too Large: the body is 2000 bytes, over the limit of 1000"/,
  },
  {
    name: 'the messages mock',
    start: () => started(startMockMessagesService({ bodyLimit: 1000 })),
    path: '/v1/messages',
    headers: MESSAGES_HEADERS,
    tooLarge: /"type":"request_too_large"/,
  },
  {
    name: 'record messages',
    start: () => started(startRecordingProxy({ upstream: UPSTREAM, bodyLimit: 1000 })),
    path: '/v1/messages',
    headers: MESSAGES_HEADERS,
    tooLarge: /"type":"request_too_large"/,
  },
  {
    name: 'record tools (SSE)',
    start: () => started(startSseRecordingProxy({ upstream: `${UPSTREAM}/sse`, bodyLimit: 1000 })),
    path: '/messages?sessionId=x',
    headers: [JSON_TYPE],
    tooLarge: /body exceeds 1000 bytes/,
  },
  {
    name: 'record tools (Streamable HTTP)',
    start: () =>
      started(
        startStreamableHttpRecordingProxy({
          upstream: `${UPSTREAM}/mcp`,
          bodyLimit: 1000,
        }),
      ),
    path: '/mcp',
    headers: [JSON_TYPE, BOTH],
    tooLarge: /body exceeds 1000 bytes/,
  },
];

describe.each(targets)('$name', (target) => {
  test('a body declared over the limit is answered 413 at once while other requests hold the whole budget', async () => {
    const url = await target.start();
    const arrivals = watchRequests(url);
    for (let i = 0; i < 4; i++)
      held(rawPost(url, target.path, [...target.headers, 'content-length: 1000'], '{"a'));
    await arrivals.until(4);
    // Nothing of the body is sent: the answer must not wait for it.
    const over = await within(
      held(rawPost(url, target.path, [...target.headers, 'content-length: 2000'])).answered,
      3_000,
      `${target.name}: the POST declared over the limit under a full budget`,
    );
    expect(over.status, `${target.name} answered:\n${over.text}`).toBe(413);
    expect(over.text).toMatch(/connection: close/i);
    // The answer's body may come in a later packet than its headers.
    const whole = await within(sockets.at(-1)!.closed, 3_000, `${target.name}: the 413's close`);
    expect(whole.text).toMatch(target.tooLarge);
  });
});
