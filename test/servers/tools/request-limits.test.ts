import { afterEach, describe, expect, test } from 'vitest';
import {
  type RunningStreamableToolServer,
  type RunningToolServer,
  startStreamableToolServer,
  startToolServer,
} from '../../../src/servers/tools/index.js';
import { eventually, type RawPost, rawPost, sleep, watchRequests, within } from '../http/raw-post.js';
import { openStream } from './helpers.js';

// A client that sends a request's headers and then stalls, or many that hold bodies they
// declared, must not hold the reference servers' connections and memory for ever: a request
// must arrive whole within the request timeout (408), and bodies in flight share a budget of
// 4 x the body limit (503 past it, before the body is read).

const running: { close(): Promise<void> }[] = [];
const sockets: RawPost[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.socket.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

const NO_SESSION = '/messages?sessionId=00000000-0000-0000-0000-000000000000';
const JSON_TYPE = 'content-type: application/json';
const BOTH = 'application/json, text/event-stream';
const CHUNK = `{"x":"${'y'.repeat(592)}"}`;
/** A whole chunked body of 600 bytes (within the body limit of 1000). */
const CHUNKED_600 = `${CHUNK.length.toString(16)}\r\n${CHUNK}\r\n0\r\n\r\n`;
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

function held(post: RawPost): RawPost {
  sockets.push(post);
  return post;
}

async function sse(options: Parameters<typeof startToolServer>[0]): Promise<RunningToolServer> {
  const s = await startToolServer({ keepAliveMs: 0, ...options });
  running.push(s);
  return s;
}

async function http(
  options: Parameters<typeof startStreamableToolServer>[0],
): Promise<RunningStreamableToolServer> {
  const s = await startStreamableToolServer(options);
  running.push(s);
  return s;
}

/** Open a session on the SSE server and POST initialize: the status of the POST and the reply. */
async function sseInitialize(
  s: RunningToolServer,
): Promise<{ status: number; reply: Record<string, unknown> }> {
  const stream = await openStream(s.url);
  try {
    const endpoint = new URL((await stream.frame(0)).data, s.url);
    const posted = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...INIT, params: { ...INIT.params, protocolVersion: '2024-11-05' } }),
    });
    await posted.text();
    return { status: posted.status, reply: await stream.reply(1) };
  } finally {
    stream.close();
  }
}

describe('the reference tool server over SSE', () => {
  test('a POST whose body stalls is answered 408 and closed within the request timeout', async () => {
    const s = await sse({ requestTimeoutMs: 300 });
    const post = held(rawPost(s.url, NO_SESSION, [JSON_TYPE, 'content-length: 1000000'], '{"a'));
    const outcome = await within(post.closed, 3_000, 'the stalled POST');
    expect(outcome.status).toBe(408);
  });

  test('an event stream lasts past the request timeout: a reply still reaches it', async () => {
    const s = await sse({ requestTimeoutMs: 200 });
    const stream = await openStream(s.url);
    try {
      const endpoint = new URL((await stream.frame(0)).data, s.url);
      await sleep(800);
      const posted = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...INIT, params: { ...INIT.params, protocolVersion: '2024-11-05' } }),
      });
      expect(posted.status).toBe(202);
      expect(await stream.reply(1)).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
    } finally {
      stream.close();
    }
  });

  test('bodies held past the budget (4 x the body limit) are refused 503 before they are read; later requests pass', async () => {
    const s = await sse({ bodyLimit: 1000 });
    const arrivals = watchRequests(s.url);
    for (let i = 0; i < 4; i++) held(rawPost(s.url, NO_SESSION, [JSON_TYPE, 'content-length: 1000'], '{"a'));
    await arrivals.until(4);
    const refused = await within(
      held(rawPost(s.url, NO_SESSION, [JSON_TYPE, 'content-length: 1000'], '{"a')).answered,
      3_000,
      'the POST past the budget',
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/connection: close/i);
    expect(refused.text).toMatch(/would pass its limit of 4000/);
    for (const p of sockets.splice(0)) p.socket.destroy();
    // The server frees the budget as it sees the closes, some time after they were sent.
    await eventually(async () => {
      const after = await sseInitialize(s);
      expect(after.status).toBe(202);
      expect(after.reply).toMatchObject({ id: 1, result: {} });
    });
  });

  test('a chunked body is charged as it arrives: past the budget it is refused 503', async () => {
    const s = await sse({ bodyLimit: 1000 });
    const arrivals = watchRequests(s.url);
    // 3500 bytes of 4000 held: a chunked body of 600 would pass the budget.
    for (let i = 0; i < 3; i++) held(rawPost(s.url, NO_SESSION, [JSON_TYPE, 'content-length: 1000'], '{"a'));
    held(rawPost(s.url, NO_SESSION, [JSON_TYPE, 'content-length: 500'], '{"a'));
    await arrivals.until(4);
    const refused = await within(
      held(rawPost(s.url, NO_SESSION, [JSON_TYPE, 'transfer-encoding: chunked'], CHUNKED_600)).answered,
      3_000,
      'the chunked POST past the budget',
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/chunked body/);
  });
});

describe('the reference tool server over Streamable HTTP', () => {
  test('a POST whose body stalls is answered 408 and closed within the request timeout', async () => {
    const s = await http({ requestTimeoutMs: 300 });
    const post = held(rawPost(s.url, '/mcp', [JSON_TYPE, 'content-length: 1000000'], '{"a'));
    const outcome = await within(post.closed, 3_000, 'the stalled POST');
    expect(outcome.status).toBe(408);
  });

  test('a slow tool call answered on an event stream lasts past the request timeout', async () => {
    const s = await http({ requestTimeoutMs: 200 });
    const init = await fetch(s.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: BOTH },
      body: JSON.stringify(INIT),
    });
    await init.text();
    const session = init.headers.get('mcp-session-id')!;
    const call = await fetch(s.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: BOTH,
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 800 } },
      }),
    });
    expect(call.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await call.text();
    expect(text).toMatch(/"id":2,"result"/);
  });

  test('bodies held past the budget (4 x the body limit) are refused 503 before they are read; later requests pass', async () => {
    const s = await http({ bodyLimit: 1000 });
    const arrivals = watchRequests(s.url);
    for (let i = 0; i < 4; i++)
      held(rawPost(s.url, '/mcp', [JSON_TYPE, `accept: ${BOTH}`, 'content-length: 1000'], '{"a'));
    await arrivals.until(4);
    const refused = await within(
      held(rawPost(s.url, '/mcp', [JSON_TYPE, `accept: ${BOTH}`, 'content-length: 1000'], '{"a')).answered,
      3_000,
      'the POST past the budget',
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/connection: close/i);
    expect(refused.text).toMatch(
      /"code":-32000,"message":"Service Unavailable: .*would pass its limit of 4000/,
    );
    for (const p of sockets.splice(0)) p.socket.destroy();
    // The server frees the budget as it sees the closes, some time after they were sent.
    await eventually(async () => {
      const after = await fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: BOTH },
        body: JSON.stringify(INIT),
      });
      expect(after.status).toBe(200);
      expect(await after.text()).toMatch(/"result"/);
    });
  });

  test('a chunked body is charged as it arrives: past the budget it is refused 503', async () => {
    const s = await http({ bodyLimit: 1000 });
    const arrivals = watchRequests(s.url);
    // 3500 bytes of 4000 held: a chunked body of 600 would pass the budget.
    for (let i = 0; i < 3; i++)
      held(rawPost(s.url, '/mcp', [JSON_TYPE, `accept: ${BOTH}`, 'content-length: 1000'], '{"a'));
    held(rawPost(s.url, '/mcp', [JSON_TYPE, `accept: ${BOTH}`, 'content-length: 500'], '{"a'));
    await arrivals.until(4);
    const refused = await within(
      held(rawPost(s.url, '/mcp', [JSON_TYPE, `accept: ${BOTH}`, 'transfer-encoding: chunked'], CHUNKED_600))
        .answered,
      3_000,
      'the chunked POST past the budget',
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/chunked body/);
  });
});
