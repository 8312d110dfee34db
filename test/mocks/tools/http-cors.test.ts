import { afterEach, expect, test } from 'vitest';
import {
  buildMockToolServer,
  buildStreamableHttpMockToolServer,
  type RunningMockToolServer,
  startMockToolServer,
} from '../../../src/mocks/tools/index.js';

// A page on a loopback origin (a dev server on localhost:5173) passes the mocks' Origin guard
// on purpose: its browser must then be let through CORS, or a browser MCP client can never be
// tested against them. Pages of other sites stay refused.

const PAGE = 'http://localhost:5173';
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

let running: RunningMockToolServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const preflight = (origin: string, method = 'POST') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'content-type,mcp-session-id,authorization',
});

test.each([
  ['Streamable HTTP', buildStreamableHttpMockToolServer, '/mcp'],
  ['SSE', buildMockToolServer, '/messages?sessionId=abc'],
])(
  "%s mock: a loopback page's preflight is answered 204 with its headers, unjournaled",
  async (_name, build, url) => {
    // Behind a token: a browser sends no credentials with a preflight, so it must not be asked for them.
    const { app, journal } = build(
      {},
      { requireHeaders: { authorization: 'Bearer sk-wirecheck-token-0123' } },
    );
    const res = await app.inject({ method: 'OPTIONS', url, headers: preflight(PAGE) });
    await app.close();
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('content-type,mcp-session-id,authorization');
    expect(journal.entries()).toEqual([]);
  },
);

test('a page of another site gets 403 to its preflight and no CORS header; a preflight for no route is 404', async () => {
  const { app } = buildStreamableHttpMockToolServer();
  const other = await app.inject({
    method: 'OPTIONS',
    url: '/mcp',
    headers: preflight('https://evil.example'),
  });
  const nowhere = await app.inject({ method: 'OPTIONS', url: '/elsewhere', headers: preflight(PAGE) });
  const unserved = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: preflight(PAGE, 'PUT') });
  await app.close();
  expect(other.statusCode).toBe(403);
  expect(other.headers['access-control-allow-origin']).toBeUndefined();
  expect(nowhere.statusCode).toBe(404);
  expect(unserved.statusCode).toBe(404);
});

test("a loopback page can read the Streamable HTTP mock's answers and their Mcp-Session-Id; another site's POST stays 403", async () => {
  const { app } = buildStreamableHttpMockToolServer({ faults: { httpAnswer: 'json' } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const page = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...headers, origin: PAGE },
    payload: INIT,
  });
  const other = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...headers, origin: 'https://evil.example' },
    payload: INIT,
  });
  await app.close();
  expect(page.statusCode).toBe(200);
  expect(page.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(page.headers['access-control-allow-origin']).toBe(PAGE);
  const exposed = String(page.headers['access-control-expose-headers']).split(/,\s*/);
  expect(exposed).toEqual(expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version']));
  expect(other.statusCode).toBe(403);
  expect(other.headers['access-control-allow-origin']).toBeUndefined();
});

test("a loopback page's GET /sse stream is readable by it (the header goes out with the hijacked stream)", async () => {
  running = await startMockToolServer();
  const ac = new AbortController();
  const r = await fetch(running.url, {
    headers: { origin: PAGE, accept: 'text/event-stream' },
    signal: ac.signal,
  });
  const status = r.status;
  const allowed = r.headers.get('access-control-allow-origin');
  ac.abort();
  await r.body?.cancel().catch(() => {});
  expect(status).toBe(200);
  expect(allowed).toBe(PAGE);
});

test('HEAD /sse opens no session (it would never be read): the mock serves no HEAD', async () => {
  const { app, journal, sessions } = buildMockToolServer();
  const res = await app.inject({ method: 'HEAD', url: '/sse' });
  const open = sessions.size;
  await app.close();
  expect(res.statusCode).toBe(404);
  expect(open).toBe(0);
  expect(journal.entries().filter((e) => e.kind === 'stream-open')).toEqual([]);
});
