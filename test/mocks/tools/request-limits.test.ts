import { afterEach, describe, expect, test } from 'vitest';
import type { MockHttpInternals } from '../../../src/mocks/tools/http-common.js';
import {
  type MockToolServerOptions,
  type RunningMockToolServer,
  startMockToolServer,
  startStreamableHttpMockToolServer,
} from '../../../src/mocks/tools/index.js';
import {
  eventually,
  type RawPost,
  rawPost,
  sleep,
  watchRequests,
  within,
} from '../../servers/http/raw-post.js';
import { openStream, post } from './sse-client.js';

// The HTTP mocks hold a client's stalled request no longer than the request timeout (408), and
// bodies in flight share a budget of 4 x the body limit: past it a POST is answered 503 before
// its body is read, in the transport's refusal shape, and journaled with that status.

type Options = MockToolServerOptions & MockHttpInternals;

const running: RunningMockToolServer[] = [];
const sockets: RawPost[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.socket.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

const JSON_TYPE = 'content-type: application/json';
const BOTH = 'application/json, text/event-stream';
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

function held(p: RawPost): RawPost {
  sockets.push(p);
  return p;
}

const kinds = [
  {
    name: 'SSE',
    start: (options: Options) => startMockToolServer({}, options),
    path: '/messages?sessionId=x',
    headers: [JSON_TYPE],
    /** The refusal body: the reference SSE server's `{error}`. */
    refusal: /\{"error":"Service Unavailable: .*would pass its limit of 4000/,
  },
  {
    name: 'Streamable HTTP',
    start: (options: Options) => startStreamableHttpMockToolServer({}, options),
    path: '/mcp',
    headers: [JSON_TYPE, `accept: ${BOTH}`],
    /** The refusal body: JSON-RPC, as the reference Streamable HTTP server answers. */
    refusal: /"code":-32000,"message":"Service Unavailable: .*would pass its limit of 4000/,
  },
] as const;

describe.each(kinds)('the mock tool server over $name', (kind) => {
  async function start(options: Options): Promise<RunningMockToolServer> {
    const s = await kind.start(options);
    running.push(s);
    return s;
  }

  test('a POST whose body stalls is answered 408 and closed within the request timeout', async () => {
    const s = await start({ requestTimeoutMs: 300 });
    const stalled = held(rawPost(s.url, kind.path, [...kind.headers, 'content-length: 1000000'], '{"a'));
    const outcome = await within(stalled.closed, 3_000, 'the stalled POST');
    expect(outcome.status).toBe(408);
  });

  test('bodies held past the budget (4 x the body limit) are refused 503 before they are read, journaled; later requests pass', async () => {
    const s = await start({ bodyLimit: 1000 });
    const arrivals = watchRequests(s.url);
    for (let i = 0; i < 4; i++)
      held(rawPost(s.url, kind.path, [...kind.headers, 'content-length: 1000'], '{"a'));
    await arrivals.until(4);
    const refused = await within(
      held(rawPost(s.url, kind.path, [...kind.headers, 'content-length: 1000'], '{"a')).answered,
      3_000,
      'the POST past the budget',
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/connection: close/i);
    expect(refused.text).toMatch(kind.refusal);
    await s.live.waitFor((e) => e.http?.status === 503, 2_000);
    const entry = s.journal().find((e) => e.http?.status === 503);
    expect(entry).toMatchObject({ kind: 'message', text: '', truncated: { bytes: 1000 } });
    for (const p of sockets.splice(0)) p.socket.destroy();
    // The server frees the budget as it sees the closes, some time after they were sent.
    await eventually(async () => {
      if (kind.name === 'SSE') {
        const stream = await openStream(s.url);
        try {
          const endpoint = new URL((await stream.next((f) => f.event === 'endpoint')).data, s.url);
          expect((await post(endpoint.href, INIT)).status).toBe(202);
        } finally {
          stream.close();
        }
      } else {
        const after = await fetch(s.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: BOTH },
          body: INIT,
        });
        expect(after.status).toBe(200);
        await after.text();
      }
    });
  });

  test('a chunked body is charged as it arrives: past the budget it is refused 503', async () => {
    const s = await start({ bodyLimit: 1000 });
    const arrivals = watchRequests(s.url);
    // 3500 bytes of 4000 held: a chunked body of 600 would pass the budget.
    for (let i = 0; i < 3; i++)
      held(rawPost(s.url, kind.path, [...kind.headers, 'content-length: 1000'], '{"a'));
    held(rawPost(s.url, kind.path, [...kind.headers, 'content-length: 500'], '{"a'));
    await arrivals.until(4);
    const chunk = `{"x":"${'y'.repeat(592)}"}`;
    const refused = await within(
      held(
        rawPost(
          s.url,
          kind.path,
          [...kind.headers, 'transfer-encoding: chunked'],
          `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
        ),
      ).answered,
      3_000,
      'the chunked POST past the budget',
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/chunked body/);
  });
});

test('the SSE mock: an event stream lasts past the request timeout and still carries replies', async () => {
  const options: Options = { requestTimeoutMs: 200 };
  const s = await startMockToolServer({}, options);
  running.push(s);
  const stream = await openStream(s.url);
  try {
    const endpoint = new URL((await stream.next((f) => f.event === 'endpoint')).data, s.url);
    await sleep(800);
    expect((await post(endpoint.href, INIT)).status).toBe(202);
    const reply = await stream.next((f) => f.event === 'message');
    expect(JSON.parse(reply.data)).toMatchObject({ id: 1, result: {} });
  } finally {
    stream.close();
  }
});
