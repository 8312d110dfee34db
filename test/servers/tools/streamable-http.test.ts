import { type IncomingHttpHeaders, request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import {
  type RunningStreamableToolServer,
  type StreamableToolServerOptions,
  startStreamableToolServer,
} from '../../../src/servers/tools/index.js';
import { eventually, openStream } from './helpers.js';

let server: RunningStreamableToolServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: StreamableToolServerOptions = {}): Promise<RunningStreamableToolServer> {
  server = await startStreamableToolServer({ port: 0, ...options });
  return server;
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const BOTH = 'application/json, text/event-stream';

function send(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(url, {
      method,
      agent: false,
      headers: {
        accept: BOTH,
        ...(text === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${method} ${url}: no whole answer within 5000 ms`));
    }, 5000);
    req.on('error', reject);
    req.on('response', (res) => {
      let data = '';
      res.on('data', (c: Buffer) => {
        data += c.toString('utf8');
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data });
      });
    });
    req.end(text);
  });
}

/** The JSON-RPC messages of an answer: a JSON body, or the data of every SSE message event. */
function messagesOf(answer: Answer): Record<string, unknown>[] {
  if (String(answer.headers['content-type']).startsWith('text/event-stream')) {
    return answer.body
      .split('\n\n')
      .map((frame) =>
        frame
          .split('\n')
          .find((l) => l.startsWith('data: '))
          ?.slice(6),
      )
      .filter((d): d is string => d !== undefined && d !== '')
      .map((d) => JSON.parse(d) as Record<string, unknown>);
  }
  const v = JSON.parse(answer.body) as Record<string, unknown> | Record<string, unknown>[];
  return Array.isArray(v) ? v : [v];
}

const init = (id: number, version = '2025-03-26') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '0' } },
});

async function initialize(url: string, version = '2025-03-26'): Promise<string> {
  const a = await send(url, 'POST', init(1, version));
  expect(a.status).toBe(200);
  const id = a.headers['mcp-session-id'];
  expect(typeof id).toBe('string');
  return id as string;
}

describe('the reference tool server over Streamable HTTP', () => {
  test('initialize issues a visible-ASCII session id and answers on an event stream (the SDK default)', async () => {
    const s = await start();
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const a = await send(s.url, 'POST', init(7));
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('text/event-stream');
    expect(a.headers['mcp-session-id']).toMatch(/^[\x21-\x7e]+$/);
    const [reply] = messagesOf(a);
    expect(reply).toMatchObject({
      id: 7,
      result: { protocolVersion: '2025-03-26', capabilities: { tools: {} } },
    });
    expect(a.body).toMatch(/^id: \S+\nevent: message\ndata: /);
    expect(s.sessionCount()).toBe(1);
  });

  test('version negotiation: a revision it speaks is answered as asked, another with the newest', async () => {
    const s = await start();
    for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const [reply] = messagesOf(await send(s.url, 'POST', init(1, v)));
      expect(reply).toMatchObject({ result: { protocolVersion: v } });
    }
    const [other] = messagesOf(await send(s.url, 'POST', init(1, '1999-01-01')));
    expect(other).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
  });

  test('answer json: application/json bodies; a client accepting only one type gets that type', async () => {
    const s = await start({ answer: 'json' });
    const a = await send(s.url, 'POST', init(1));
    expect(a.headers['content-type']).toBe('application/json');
    const session = String(a.headers['mcp-session-id']);
    const echo = await send(
      s.url,
      'POST',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { 'mcp-session-id': session },
    );
    expect(JSON.parse(echo.body)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    const s2 = await startStreamableToolServer({ port: 0 });
    try {
      const onlyJson = await send(s2.url, 'POST', init(1), { accept: 'application/json' });
      expect(onlyJson.headers['content-type']).toBe('application/json');
      const none = await send(s2.url, 'POST', init(1), { accept: 'text/html' });
      expect(none.status).toBe(406);
      // q=0 refuses a type (RFC 9110, 12.5.1): such a client gets JSON, or 406 when it refuses both.
      const noStream = await send(s2.url, 'POST', init(1), { accept: '*/*, text/event-stream;q=0' });
      expect(noStream.headers['content-type']).toBe('application/json');
      const neither = await send(s2.url, 'POST', init(1), {
        accept: 'application/json;q=0, text/event-stream;q=0',
      });
      expect(neither.status).toBe(406);
    } finally {
      await s2.close();
    }
  });

  test('notifications and responses: 202 with no body; requests in the session: answered with their id', async () => {
    const s = await start();
    const session = await initialize(s.url);
    const h = { 'mcp-session-id': session };
    const n = await send(s.url, 'POST', { jsonrpc: '2.0', method: 'notifications/initialized' }, h);
    expect(n.status).toBe(202);
    expect(n.body).toBe('');
    const r = await send(s.url, 'POST', { jsonrpc: '2.0', id: 99, result: {} }, h);
    expect(r.status).toBe(202);
    expect(r.body).toBe('');
    const ping = await send(s.url, 'POST', { jsonrpc: '2.0', id: 'p-1', method: 'ping' }, h);
    expect(messagesOf(ping)).toEqual([{ jsonrpc: '2.0', id: 'p-1', result: {} }]);
  });

  test('without a session id: 400; an unknown one: 404; after DELETE: 404', async () => {
    const s = await start();
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    expect((await send(s.url, 'POST', ping)).status).toBe(400);
    const unknown = await send(s.url, 'POST', ping, { 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
    const session = await initialize(s.url);
    expect((await send(s.url, 'POST', ping, { 'mcp-session-id': session })).status).toBe(200);
    expect((await send(s.url, 'DELETE', undefined, { 'mcp-session-id': session })).status).toBe(200);
    expect(s.sessionCount()).toBe(0);
    expect((await send(s.url, 'POST', ping, { 'mcp-session-id': session })).status).toBe(404);
    expect((await send(s.url, 'DELETE', undefined, { 'mcp-session-id': session })).status).toBe(404);
    expect((await send(s.url, 'POST', ping, { 'mcp-session-id': 'bad id' })).status).toBe(400);
  });

  test('replies go to the session that asked, with concurrent calls in many sessions', async () => {
    const s = await start();
    const sessions = await Promise.all(Array.from({ length: 8 }, () => initialize(s.url)));
    const answers = await Promise.all(
      sessions.flatMap((session, i) =>
        Array.from({ length: 4 }, (_, j) =>
          send(
            s.url,
            'POST',
            {
              jsonrpc: '2.0',
              id: j,
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: `${i}:${j}` } },
            },
            { 'mcp-session-id': session },
          ).then((a) => ({ i, j, messages: messagesOf(a) })),
        ),
      ),
    );
    for (const { i, j, messages } of answers) {
      expect(messages).toEqual([
        { jsonrpc: '2.0', id: j, result: { content: [{ type: 'text', text: `${i}:${j}` }] } },
      ]);
    }
  });

  test('MCP-Protocol-Version: an unsupported value is 400; batches are served before 2025-06-18, refused after', async () => {
    const s = await start();
    const session = await initialize(s.url);
    const h = { 'mcp-session-id': session };
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await send(s.url, 'POST', ping, { ...h, 'mcp-protocol-version': '2030-01-01' })).status).toBe(
      400,
    );
    expect((await send(s.url, 'POST', ping, { ...h, 'mcp-protocol-version': '2025-06-18' })).status).toBe(
      200,
    );
    const batch = [ping, { jsonrpc: '2.0', id: 2, method: 'ping' }];
    const served = await send(s.url, 'POST', batch, h);
    expect(messagesOf(served).map((m) => m.id)).toEqual([1, 2]);
    const refused = await send(s.url, 'POST', batch, { ...h, 'mcp-protocol-version': '2025-06-18' });
    expect(refused.status).toBe(400);
    const later = await initialize(s.url, '2025-06-18');
    expect((await send(s.url, 'POST', batch, { 'mcp-session-id': later })).status).toBe(400);
  });

  test('malformed bodies: not JSON is 400 with -32700; a wrong content type 415; too big 413', async () => {
    const s = await start({ bodyLimit: 1024 });
    const session = await initialize(s.url);
    const h = { 'mcp-session-id': session };
    const bad = await send(s.url, 'POST', '{"jsonrpc": "2.0", ', h);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ id: null, error: { code: -32700 } });
    const wrongType = await send(s.url, 'POST', '{}', { ...h, 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    const big = await send(
      s.url,
      'POST',
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { x: 'y'.repeat(4096) } },
      h,
    );
    expect(big.status).toBe(413);
    const invalid = await send(s.url, 'POST', { id: 5, method: 'ping' }, h);
    expect(messagesOf(invalid)).toMatchObject([{ id: 5, error: { code: -32600 } }]);
    const notMessage = await send(s.url, 'POST', { jsonrpc: '2.0', params: {} }, h);
    expect(notMessage.status).toBe(400);
    expect(JSON.parse(notMessage.body)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test('Host and Origin of other sites are refused with 403; other paths 404; PUT 405', async () => {
    const s = await start();
    expect((await send(s.url, 'POST', init(1), { origin: 'https://evil.example' })).status).toBe(403);
    expect((await send(s.url, 'POST', init(1), { host: 'evil.example' })).status).toBe(403);
    expect((await send(s.url, 'POST', init(1), { origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await send(`${s.origin}/other`, 'POST', init(1))).status).toBe(404);
    const put = await send(s.url, 'PUT', '{}');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
  });

  test('GET opens the session stream (one at a time) and carries server messages; DELETE ends it', async () => {
    const s = await start({ keepAliveMs: 0 });
    const session = await initialize(s.url);
    expect((await send(s.url, 'GET', undefined, { accept: 'text/event-stream' })).status).toBe(400);
    const stream = await openStream(s.url, { 'mcp-session-id': session });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      const second = await send(s.url, 'GET', undefined, {
        accept: 'text/event-stream',
        'mcp-session-id': session,
      });
      expect(second.status).toBe(409);
      expect(s.endpoint.notify(session, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).toBe(
        true,
      );
      const frame = await stream.frame(0);
      expect(JSON.parse(frame.data)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      expect(frame.id).toBe('2-1'); // stream 1 was the initialize answer
      await send(s.url, 'DELETE', undefined, { 'mcp-session-id': session });
      await stream.ended;
    } finally {
      stream.close();
    }
  });

  test('resumption: a call whose stream was cut is replayed on GET with Last-Event-ID (2025-11-25 priming)', async () => {
    const s = await start();
    const session = await initialize(s.url, '2025-11-25');
    const cut = await postCutAfterPriming(s.url, session, {
      jsonrpc: '2.0',
      id: 41,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 300 } },
    });
    expect(cut).toMatch(/^\d+-1$/);
    const resumed = await openStream(s.url, { 'mcp-session-id': session, 'last-event-id': cut });
    try {
      expect(resumed.status).toBe(200);
      const reply = await resumed.reply(41, 3000);
      expect(reply).toMatchObject({ id: 41, result: { content: [{ type: 'text', text: 'waited 300 ms' }] } });
      await resumed.ended;
    } finally {
      resumed.close();
    }
    const unknown = await send(s.url, 'GET', undefined, {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'last-event-id': '999-1',
    });
    expect(unknown.status).toBe(400);
  });

  test('bounded: sessions past maxSessions are 503; idle sessions expire to 404', async () => {
    const s = await start({ maxSessions: 2, sessionIdleMs: 100 });
    await initialize(s.url);
    const kept = await initialize(s.url);
    expect((await send(s.url, 'POST', init(1))).status).toBe(503);
    const deadline = Date.now() + 3000;
    while (s.sessionCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(s.sessionCount()).toBe(0);
    expect(
      (await send(s.url, 'POST', { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': kept }))
        .status,
    ).toBe(404);
  });

  test('a reader that stops reading its GET stream is cut at the queue limit; the session lives on', async () => {
    const logs: string[] = [];
    const s = await start({ sessionQueueLimit: 64 * 1024, keepAliveMs: 0, log: (l) => logs.push(l) });
    const session = await initialize(s.url);
    const stalled = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request(s.url, {
        agent: false,
        headers: { accept: 'text/event-stream', 'mcp-session-id': session },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.pause();
        resolve(res);
      });
      req.end();
    });
    const big = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(64 * 1024) } };
    let sent = 0;
    while (s.endpoint.notify(session, big) && sent < 2000) sent += 1;
    expect(sent).toBeLessThan(2000);
    expect(logs.some((l) => l.includes('stopped reading'))).toBe(true);
    stalled.destroy();
    const ping = await send(
      s.url,
      'POST',
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'mcp-session-id': session },
    );
    expect(ping.status).toBe(200);
  });

  test('the diagnostic tool reports transport http', async () => {
    const s = await start({ answer: 'json' });
    const session = await initialize(s.url);
    const a = await send(
      s.url,
      'POST',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'diagnostic', arguments: {} } },
      { 'mcp-session-id': session },
    );
    const text = (JSON.parse(a.body) as { result: { content: { text: string }[] } }).result.content[0]?.text;
    expect(text).toMatch(/^transport: http$/m);
    expect(text).toMatch(/^open_sessions: 1$/m);
  });
});

/** POST `body` on an event stream and break the connection once its priming event came: its id. */
function postCutAfterPriming(url: string, session: string, body: unknown): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { accept: BOTH, 'content-type': 'application/json', 'mcp-session-id': session },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
        const id = /^id: (\S+)\ndata: \n\n/.exec(text)?.[1];
        if (id !== undefined) {
          req.destroy();
          resolve(id);
        }
      });
    });
    req.end(JSON.stringify(body));
  });
}

/** The ids of an event-stream answer's frames, in order. */
const eventIds = (answer: Answer): string[] => [...answer.body.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);

const slowCall = (id: number, ms: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow', arguments: { ms } },
});

describe('the replay log keeps only what a client can still ask for', () => {
  test('a POST answered on an event stream and read to its end leaves nothing to replay (a 1 MB echo included)', async () => {
    const s = await start();
    const session = await initialize(s.url);
    const text = 'x'.repeat(1_000_000);
    const echo = await send(
      s.url,
      'POST',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text } } },
      { 'mcp-session-id': session },
    );
    expect(echo.headers['content-type']).toBe('text/event-stream');
    expect(messagesOf(echo)[0]).toMatchObject({ id: 2, result: { content: [{ type: 'text', text }] } });
    await eventually(() => s.endpoint.replayBytes(session) === 0, 2000).catch(() => {});
    expect(s.endpoint.replayBytes(session)).toBe(0);
    // The initialize answer was read to its end too.
    expect(s.endpoint.replayBytes()).toBe(0);
  });

  test('a stream read to its end: resuming from its last event is answered with nothing, from before it 400', async () => {
    const s = await start();
    const session = await initialize(s.url, '2025-11-25');
    const answer = await send(s.url, 'POST', slowCall(5, 20), { 'mcp-session-id': session });
    const [priming, last] = eventIds(answer);
    expect(priming).toMatch(/^\d+-1$/);
    expect(last).toMatch(/^\d+-2$/);
    await eventually(() => s.endpoint.replayBytes(session) === 0, 2000).catch(() => {});
    const fromLast = await send(s.url, 'GET', undefined, {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'last-event-id': last!,
    });
    expect(fromLast.status).toBe(200);
    expect(fromLast.body).toBe('');
    const fromPriming = await send(s.url, 'GET', undefined, {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'last-event-id': priming!,
    });
    expect(fromPriming.status).toBe(400);
    expect(JSON.parse(fromPriming.body)).toMatchObject({
      error: { message: expect.stringContaining(`${JSON.stringify(priming)}`) },
    });
    expect(fromPriming.body).toContain('read to its end');
  });

  test('a stream cut before its end keeps its events for a resumption; read to the end there, they go', async () => {
    const s = await start();
    const session = await initialize(s.url, '2025-11-25');
    const cut = await postCutAfterPriming(s.url, session, slowCall(41, 100));
    // The reply comes after the client left: it is kept for Last-Event-ID.
    await eventually(() => s.endpoint.replayBytes(session) > 0, 3000);
    const resumed = await openStream(s.url, { 'mcp-session-id': session, 'last-event-id': cut });
    try {
      expect(resumed.status).toBe(200);
      expect(await resumed.reply(41, 3000)).toMatchObject({
        id: 41,
        result: { content: [{ text: 'waited 100 ms' }] },
      });
      await resumed.ended;
    } finally {
      resumed.close();
    }
    await eventually(() => s.endpoint.replayBytes(session) === 0, 2000).catch(() => {});
    expect(s.endpoint.replayBytes(session)).toBe(0);
  });

  test('ending a session gives its replay room back', async () => {
    const s = await start();
    const session = await initialize(s.url, '2025-11-25');
    await postCutAfterPriming(s.url, session, slowCall(7, 10));
    await eventually(() => s.endpoint.replayBytes(session) > 0, 3000);
    expect(s.endpoint.replayBytes()).toBe(s.endpoint.replayBytes(session));
    expect((await send(s.url, 'DELETE', undefined, { 'mcp-session-id': session })).status).toBe(200);
    expect(s.endpoint.replayBytes()).toBe(0);
  });
});
