import { afterEach, describe, expect, test } from 'vitest';
import {
  defineTool,
  REFERENCE_TOOLS,
  type RunningToolServer,
  startToolServer,
} from '../../../src/servers/tools/index.js';
import { eventually, INITIALIZE_PARAMS, type OpenStream, openStream, post } from './helpers.js';

let server: RunningToolServer | undefined;
const streams: OpenStream[] = [];

async function start(options: Parameters<typeof startToolServer>[0] = {}): Promise<RunningToolServer> {
  server = await startToolServer({ port: 0, ...options });
  return server;
}

async function session(s: RunningToolServer): Promise<{ stream: OpenStream; endpoint: string; id: string }> {
  const stream = await openStream(s.url);
  streams.push(stream);
  const first = await stream.frame(0);
  const endpoint = new URL(first.data, s.origin).href;
  return { stream, endpoint, id: new URL(endpoint).searchParams.get('sessionId') ?? '' };
}

afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await server?.close();
  server = undefined;
});

describe('GET /sse (spec "Tool server, SSE transport")', () => {
  test('answers 200 text/event-stream, no-cache, X-Accel-Buffering: no; the first event is endpoint with a sessionId', async () => {
    const s = await start();
    const stream = await openStream(s.url);
    streams.push(stream);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.headers['cache-control']).toBe('no-cache, no-transform');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    const first = await stream.frame(0);
    expect(first.event).toBe('endpoint');
    expect(first.data).toMatch(
      /^\/messages\?sessionId=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });

  test('the URL of startToolServer carries the real port when port 0 was asked', async () => {
    const s = await start();
    expect(s.port).toBeGreaterThan(0);
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/sse`);
  });
});

describe('POST to the message path (spec "Tool server, SSE transport")', () => {
  test('answers 202 Accepted and the JSON-RPC reply arrives on the stream as event message', async () => {
    const s = await start();
    const { stream, endpoint } = await session(s);
    const res = await post(endpoint, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: INITIALIZE_PARAMS,
    });
    expect(res.status).toBe(202);
    expect(res.body).toBe('Accepted');
    const reply = await stream.reply(1);
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05' } });
    expect(stream.frames[1]?.event).toBe('message');
  });

  test('the session id is also accepted in the Mcp-Session-Id header', async () => {
    const s = await start();
    const { stream, id } = await session(s);
    const res = await post(
      `${s.origin}/messages`,
      { jsonrpc: '2.0', id: 'h', method: 'ping' },
      { 'content-type': 'application/json', 'Mcp-Session-Id': id },
    );
    expect(res.status).toBe(202);
    expect(await stream.reply('h')).toEqual({ jsonrpc: '2.0', id: 'h', result: {} });
  });

  test('a POST with no session id is 400 with a JSON error saying so', async () => {
    const s = await start();
    const res = await post(`${s.origin}/messages`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(res.status).toBe(400);
    expect(res.contentType).toContain('application/json');
    const body = JSON.parse(res.body) as { error: unknown };
    expect(typeof body.error).toBe('string');
    expect(body.error).toContain('no session id');
  });

  test('a POST for an unknown session is 400 with a JSON error naming it (no active stream)', async () => {
    const s = await start();
    const res = await post(`${s.origin}/messages?sessionId=not-a-session`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: expect.stringContaining('unknown session not-a-session') });
  });

  test('a POST for a session whose stream closed is 400 with a JSON error saying it is closed', async () => {
    const s = await start();
    const { stream, endpoint, id } = await session(s);
    stream.close();
    await eventually(() => s.sessionCount() === 0);
    const res = await post(endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: expect.stringContaining(`session ${id} is closed`) });
  });

  test('a body that is not JSON by content type is 400 with a JSON error', async () => {
    const s = await start();
    const { endpoint } = await session(s);
    const res = await post(endpoint, '{"jsonrpc":"2.0","id":1,"method":"ping"}', {
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: expect.stringContaining('application/json') });
  });

  test('a body over the limit is 413 with a JSON error', async () => {
    const s = await start({ bodyLimit: 1024 });
    const { endpoint } = await session(s);
    const res = await post(endpoint, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(4096) },
    });
    expect(res.status).toBe(413);
    expect(typeof (JSON.parse(res.body) as { error: unknown }).error).toBe('string');
  });

  test('malformed JSON for a live session is 202 and -32700 on the stream; the session goes on', async () => {
    const s = await start();
    const { stream, endpoint } = await session(s);
    const res = await post(endpoint, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(202);
    await stream.waitFor(() => stream.messages().length === 1);
    expect(stream.messages()[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    await post(endpoint, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await stream.reply(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  test('an unknown tool is a JSON-RPC error naming it, on the stream (spec "Errors")', async () => {
    const s = await start();
    const { stream, endpoint } = await session(s);
    await post(endpoint, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'nope', arguments: {} },
    });
    expect(await stream.reply(3)).toMatchObject({ error: { code: -32602, message: 'Unknown tool: nope' } });
  });

  test('a reply that cannot be serialized is answered -32603 on the stream instead of never', async () => {
    const bigint = defineTool({
      name: 'bigint',
      description: 'returns a value JSON cannot carry',
      inputSchema: { type: 'object' },
      handler: () => ({ content: [{ type: 'text', text: 'x', n: 1n }] }),
    });
    const s = await start({ tools: [...REFERENCE_TOOLS, bigint] });
    const { stream, endpoint } = await session(s);
    await post(endpoint, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'bigint' } });
    expect(await stream.reply(9)).toMatchObject({ id: 9, error: { code: -32603 } });
  });

  test('HEAD /sse opens no session', async () => {
    const s = await start();
    const res = await fetch(s.url, { method: 'HEAD' });
    expect(res.status).toBe(404);
    expect(s.sessionCount()).toBe(0);
  });

  test('an unknown route is 404 with a JSON error naming the real paths', async () => {
    const s = await start();
    const res = await post(`${s.origin}/message?sessionId=x`, {});
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ error: expect.stringContaining('/messages') });
  });
});

describe('session registry (spec "Errors": responses routed to the wrong client)', () => {
  test('50 concurrent sessions with interleaved calls each receive only their own replies', async () => {
    const s = await start();
    const sessions = await Promise.all(Array.from({ length: 50 }, () => session(s)));
    expect(s.sessionCount()).toBe(50);
    const calls = 4;
    const posts: Promise<unknown>[] = [];
    for (let k = 0; k < calls; k++) {
      sessions.forEach(({ endpoint }, i) => {
        posts.push(
          post(endpoint, {
            jsonrpc: '2.0',
            id: k,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: `session ${i} call ${k}` } },
          }),
        );
      });
    }
    const statuses = (await Promise.all(posts)) as { status: number }[];
    expect(statuses.every((r) => r.status === 202)).toBe(true);
    await Promise.all(
      sessions.map(({ stream }) => stream.waitFor(() => stream.messages().length === calls, 10_000)),
    );
    sessions.forEach(({ stream }, i) => {
      const texts = stream
        .messages()
        .map((m) => (m.result as { content: { text: string }[] }).content[0]?.text)
        .sort();
      expect(texts).toEqual(Array.from({ length: calls }, (_, k) => `session ${i} call ${k}`));
    });
  });
});

describe('keep-alive (spec "Tool-server SSE events", "Limits")', () => {
  test('a comment frame is sent every keepAliveMs', async () => {
    const s = await start({ keepAliveMs: 40 });
    const { stream } = await session(s);
    await stream.waitFor(() => stream.comments.length >= 2, 3_000);
    expect(stream.comments[0]).toContain('keep-alive');
  });

  test('keepAliveMs 0 sends none', async () => {
    const s = await start({ keepAliveMs: 0 });
    const { stream, endpoint } = await session(s);
    await new Promise((r) => setTimeout(r, 100));
    await post(endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' });
    await stream.reply(1);
    expect(stream.comments).toEqual([]);
  });
});

describe('closing a stream (spec "SSE tool-server session": open -> closed)', () => {
  test('de-allocates the session and aborts its in-flight tool calls', async () => {
    const s = await start();
    const a = await session(s);
    const b = await session(s);
    await post(a.endpoint, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 30_000 } },
    });
    await eventually(() => s.inFlightCount() === 1);
    await post(b.endpoint, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'diagnostic' } });
    const before = (await b.stream.reply(1)) as { result: { content: { text: string }[] } };
    expect(before.result.content[0]?.text).toMatch(/^in_flight_calls: 1$/m);
    expect(before.result.content[0]?.text).toMatch(/^open_sessions: 2$/m);

    a.stream.close();
    await eventually(() => s.sessionCount() === 1);
    expect(s.inFlightCount()).toBe(0);
    expect(s.core.sessionCount()).toBe(1);
    await post(b.endpoint, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'diagnostic' } });
    const after = (await b.stream.reply(2)) as { result: { content: { text: string }[] } };
    expect(after.result.content[0]?.text).toMatch(/^in_flight_calls: 0$/m);
    expect(after.result.content[0]?.text).toMatch(/^open_sessions: 1$/m);
  });

  test('a new GET /sse after a close opens a new session that works', async () => {
    const s = await start();
    const first = await session(s);
    first.stream.close();
    await eventually(() => s.sessionCount() === 0);
    const second = await session(s);
    expect(second.id).not.toBe(first.id);
    await post(second.endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await second.stream.reply(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  test('closing the server ends every stream and de-allocates every session', async () => {
    const s = await start();
    const a = await session(s);
    await post(a.endpoint, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 30_000 } },
    });
    await eventually(() => s.inFlightCount() === 1);
    await s.close();
    server = undefined;
    await a.stream.ended;
    expect(s.sessionCount()).toBe(0);
    expect(s.inFlightCount()).toBe(0);
  });
});
