import { afterEach, describe, expect, test } from 'vitest';
import { SESSION_QUEUE_LIMIT_BYTES } from '../../../src/servers/http/outbound-queue.js';
import { type RunningToolServer, startToolServer } from '../../../src/servers/tools/index.js';
import { openStalledStream, type StalledStream } from '../http/stalled-reader.js';
import { eventually, type OpenStream, openStream, post } from './helpers.js';

let server: RunningToolServer | undefined;
const cleanup: (() => void)[] = [];

afterEach(async () => {
  for (const c of cleanup.splice(0)) c();
  await server?.close();
  server = undefined;
});

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('a client that stops reading its stream (spec "SSE tool-server session": the server frees what a session holds)', () => {
  test('the default queue bound is named and 16 MiB', () => {
    expect(SESSION_QUEUE_LIMIT_BYTES).toBe(16 * 1024 * 1024);
  });

  test('is dropped once its queued replies pass the bound: its in-flight calls are aborted, later POSTs get 400, other sessions go on', async () => {
    const log: string[] = [];
    server = await startToolServer({ sessionQueueLimit: 1024 * 1024, log: (l) => log.push(l) });
    const s = server;
    const healthy: OpenStream = await openStream(s.url);
    cleanup.push(() => healthy.close());
    const healthyEndpoint = new URL((await healthy.frame(0)).data, s.origin).href;
    const stalled: StalledStream = await openStalledStream(s.port);
    cleanup.push(() => stalled.destroy());
    const endpoint = new URL(stalled.endpoint, s.origin).href;
    expect(s.sessionCount()).toBe(2);

    // One call that would run for 30 s, then echo replies nobody reads.
    expect((await post(endpoint, call(1, 'slow', { ms: 30_000 }))).status).toBe(202);
    await eventually(() => s.inFlightCount() === 1);
    const text = 'x'.repeat(256 * 1024);
    let refusedAt = -1;
    for (let i = 0; i < 400 && refusedAt < 0; i++) {
      const res = await post(endpoint, call(100 + i, 'echo', { text }));
      if (res.status === 400) {
        expect(JSON.parse(res.body).error).toContain('is closed');
        refusedAt = i;
      } else expect(res.status).toBe(202);
    }
    // Without a bound all 400 POSTs (100 MiB of replies) were accepted and queued on the heap.
    expect(refusedAt).toBeGreaterThan(0);
    await eventually(() => s.sessionCount() === 1);
    // The server ended the connection: reading on finds its end.
    stalled.socket.resume();
    await stalled.closed;
    expect(s.inFlightCount()).toBe(0);
    expect(log.join('\n')).toMatch(
      /stopped reading its event stream \(\d+ bytes queued, over the limit of 1048576\)/,
    );

    // The reader that kept reading was not touched.
    expect((await post(healthyEndpoint, call(7, 'echo', { text: 'still here' }))).status).toBe(202);
    expect(await healthy.reply(7)).toMatchObject({ result: { content: [{ text: 'still here' }] } });
  });

  test('a reader that reads on is never dropped, however much it is sent', async () => {
    server = await startToolServer({ sessionQueueLimit: 1024 * 1024 });
    const stream = await openStream(server.url);
    cleanup.push(() => stream.close());
    const endpoint = new URL((await stream.frame(0)).data, server.origin).href;
    const text = 'y'.repeat(256 * 1024);
    for (let i = 0; i < 40; i++) expect((await post(endpoint, call(i, 'echo', { text }))).status).toBe(202);
    await stream.reply(39, 10_000);
    expect(server.sessionCount()).toBe(1);
  });
});

describe('requests of other sites (MCP 2024-11-05: servers validate Origin; DNS rebinding)', () => {
  test('a Host that is not a loopback name or the configured host is 403 with a JSON error; loopback names pass', async () => {
    server = await startToolServer();
    const refused = await server.app.inject({
      method: 'GET',
      url: '/sse',
      headers: { host: 'attacker.example:8000' },
    });
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body).error).toContain('Host "attacker.example:8000" is not allowed');
    const post = await server.app.inject({
      method: 'POST',
      url: '/messages?sessionId=x',
      headers: { host: `localhost:${server.port}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(post.statusCode).toBe(400);
  });

  test('an Origin of another site is 403; a page served from localhost passes', async () => {
    server = await startToolServer();
    const base = { host: `127.0.0.1:${server.port}`, 'content-type': 'application/json' };
    const other = await server.app.inject({
      method: 'POST',
      url: '/messages?sessionId=x',
      headers: { ...base, origin: 'https://attacker.example' },
      payload: '{}',
    });
    expect(other.statusCode).toBe(403);
    expect(JSON.parse(other.body).error).toContain('Origin "https://attacker.example" is not allowed');
    const local = await server.app.inject({
      method: 'POST',
      url: '/messages?sessionId=x',
      headers: { ...base, origin: 'http://localhost:5173' },
      payload: '{}',
    });
    expect(local.statusCode).toBe(400);
  });
});
