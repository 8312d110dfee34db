import { afterEach, describe, expect, test } from 'vitest';
import { ToolClient } from '../../../src/clients/tools/index.js';
import {
  buildStreamableHttpMockToolServer,
  MAX_OPEN_HTTP_SESSIONS,
  type RunningMockToolServer,
  startStreamableHttpMockToolServer,
  type ToolScenarioInput,
} from '../../../src/mocks/tools/index.js';
import { StreamableHttpClientTransport } from '../../../src/transports/index.js';

let server: RunningMockToolServer | undefined;
const clients: ToolClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  server = undefined;
});

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const ACCEPT = 'application/json, text/event-stream';

async function start(scenario: ToolScenarioInput = {}) {
  server = await startStreamableHttpMockToolServer(scenario);
  return server;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function reference(scenario: ToolScenarioInput = {}) {
  const s = await start(scenario);
  const warnings: string[] = [];
  const client = new ToolClient(new StreamableHttpClientTransport(s.url, { resumeDelayMs: 10 }), {
    timeoutMs: 4000,
    onWarning: (w) => warnings.push(w),
  });
  clients.push(client);
  await client.connect();
  return { server: s, client, warnings };
}

const received = (s: RunningMockToolServer) => s.journal().filter((e) => e.direction === 'received');

describe('Streamable HTTP mock tool server', () => {
  test('initialize opens a session: its id in Mcp-Session-Id, the answer an event with an id (sse answers)', async () => {
    const s = await start();
    const r = await post(s.url, INIT);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(r.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    const text = await r.text();
    expect(text).toMatch(
      /^id: 1-1\nevent: message\ndata: \{"jsonrpc":"2.0","id":1,"result":\{"protocolVersion":"2025-03-26"/,
    );
  });

  test('httpAnswer json answers with one application/json body; notifications get 202', async () => {
    const s = await start({ faults: { httpAnswer: 'json' } });
    const r = await post(s.url, INIT);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-03-26' } });
    const session = r.headers.get('mcp-session-id')!;
    const n = await post(
      s.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': session },
    );
    expect(n.status).toBe(202);
    const batch = await post(
      s.url,
      [
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      ],
      { 'mcp-session-id': session },
    );
    expect(((await batch.json()) as { id: number }[]).map((m) => m.id).sort()).toEqual([2, 3]);
  });

  test('invalid messages are answered in the POST: 200 for a request with a bad id, 400 for the rest, as the reference endpoint', async () => {
    const s = await start({ faults: { httpAnswer: 'json' } });
    const session = (await post(s.url, INIT)).headers.get('mcp-session-id')!;
    const to = { 'mcp-session-id': session };
    // -1e400 reads as -Infinity: no id a response could carry back.
    const badId = await post(s.url, '{"jsonrpc":"2.0","id":-1e400,"method":"tools/list"}', to);
    expect(badId.status).toBe(200);
    expect(await badId.json()).toMatchObject({ id: null, error: { code: -32600 } });
    const notMessage = await post(s.url, { jsonrpc: '2.0', params: {} }, to);
    expect(notMessage.status).toBe(400);
    expect(await notMessage.json()).toMatchObject({ id: null, error: { code: -32600 } });
    const nested = await post(
      s.url,
      [[{ jsonrpc: '2.0', id: 7, method: 'ping' }], { jsonrpc: '2.0', id: 8, method: 'ping' }],
      to,
    );
    expect(nested.status).toBe(200);
    const answers = (await nested.json()) as { id: unknown; error?: { code: number } }[];
    expect(answers).toHaveLength(2);
    expect(answers).toContainEqual(
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    );
    expect(answers).toContainEqual(expect.objectContaining({ id: 8, result: {} }));
    expect((await post(s.url, [], to)).status).toBe(400);
  });

  test('two POSTs in flight with the same request id are both answered (a client reusing an id)', async () => {
    const s = await start({ faults: { httpAnswer: 'json', replyDelayMs: 50 } });
    const session = (await post(s.url, INIT)).headers.get('mcp-session-id')!;
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list' };
    const answers = await Promise.all([
      post(s.url, list, { 'mcp-session-id': session }),
      post(s.url, list, { 'mcp-session-id': session }),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(await a.json()).toMatchObject({ id: 9, result: { tools: expect.any(Array) } });
    }
  });

  test('no session id is 400, an unknown or ended one 404; DELETE ends a session', async () => {
    const s = await start({ faults: { httpAnswer: 'json' } });
    expect((await post(s.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(400);
    expect(
      (await post(s.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'nope' }))
        .status,
    ).toBe(404);
    const session = (await post(s.url, INIT)).headers.get('mcp-session-id')!;
    expect((await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(
      200,
    );
    const after = await post(
      s.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': session },
    );
    expect(after.status).toBe(404);
    expect(((await after.json()) as { error: { message: string } }).error.message).toMatch(/has ended/);
    expect(received(s).map((e) => [e.http?.method, e.http?.status])).toEqual([
      ['POST', 400],
      ['POST', 404],
      ['POST', 200],
      ['DELETE', 200],
      ['POST', 404],
    ]);
  });

  test.each(['sse', 'json'] as const)(
    'the reference client calls a tool over %s answers; every entry is journaled as http',
    async (httpAnswer) => {
      const { server: s, client } = await reference({ faults: { httpAnswer } });
      expect(await client.callTool('echo', { text: 'hi' })).toEqual({
        content: [{ type: 'text', text: '{"text":"hi"}' }],
      });
      await client.close();
      const entries = s.journal();
      expect(new Set(entries.map((e) => e.transport))).toEqual(new Set(['http']));
      expect(received(s).map((e) => `${e.http?.method} ${e.http?.status}`)).toEqual([
        'POST 200',
        'POST 202',
        'GET 200',
        'POST 200',
        'DELETE 200',
      ]);
    },
  );

  test('expireSession: the first request after initialize gets 404 and the client starts a new session', async () => {
    const { server: s, client } = await reference({ faults: { expireSession: true } });
    expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: '{}' }]);
    const posts = received(s).filter((e) => e.http?.method === 'POST');
    expect(posts.map((e) => [(e.value as { method?: string }).method, e.http?.status])).toEqual([
      ['initialize', 200],
      ['notifications/initialized', 202],
      ['tools/call', 404],
      ['initialize', 200],
      ['notifications/initialized', 202],
      ['tools/call', 200],
    ]);
    expect(new Set(posts.slice(3).map((e) => e.session)).size).toBe(1);
    expect(posts[3]!.session).not.toBe(posts[0]!.session);
  });

  test('dropAnswerStream: the call stream ends after an id-only event; GET with Last-Event-ID brings the reply', async () => {
    const { server: s, client } = await reference({ faults: { dropAnswerStream: true } });
    expect((await client.callTool('echo', { a: 1 })).content).toEqual([{ type: 'text', text: '{"a":1}' }]);
    const resumed = received(s).filter((e) => e.http?.headers?.['last-event-id'] !== undefined);
    expect(resumed.map((e) => [e.http?.method, e.http?.headers?.['last-event-id'], e.http?.status])).toEqual([
      ['GET', '2-0', 200],
    ]);
  });

  test('dropRetryMs: the id-only event asks for that wait; the resuming GET is journaled with the time since the drop', async () => {
    const s = await start({ faults: { dropAnswerStream: true, dropRetryMs: 20_000 } });
    const init = await post(s.url, INIT);
    await init.text();
    const session = init.headers.get('mcp-session-id')!;
    await (
      await post(
        s.url,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { 'mcp-session-id': session },
      )
    ).text();
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } };
    expect(await (await post(s.url, call, { 'mcp-session-id': session })).text()).toBe(
      'id: 2-0\nretry: 20000\ndata: \n\n',
    );
    // Back at once, not after the 20 s asked for: the journal shows how soon. The wait is long
    // so that a loaded machine, slow to send the GET, is still far under it.
    const early = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': '2-0' },
    });
    expect(early.status).toBe(200);
    await early.text();
    const gets = received(s).filter((e) => e.http?.method === 'GET');
    expect(gets.map((e) => e.resume?.retryMs)).toEqual([20_000]);
    expect(gets[0]!.resume!.sinceDropMs).toBeGreaterThanOrEqual(0);
    expect(gets[0]!.resume!.sinceDropMs).toBeLessThan(20_000);
  });

  test('dropRetryMs: the reference client waits the retry before resuming, even when told to wait less', async () => {
    const { server: s, client } = await reference({ faults: { dropAnswerStream: true, dropRetryMs: 300 } });
    expect((await client.callTool('echo', { a: 1 })).content).toEqual([{ type: 'text', text: '{"a":1}' }]);
    const resumed = received(s).filter((e) => e.resume !== undefined);
    expect(
      resumed.map((e) => [e.http?.headers?.['last-event-id'], e.http?.status, e.resume?.retryMs]),
    ).toEqual([['2-0', 200, 300]]);
    // setTimeout never fires early by more than its 1 ms rounding.
    expect(resumed[0]!.resume!.sinceDropMs).toBeGreaterThanOrEqual(299);
  });

  test("a retry past the reference client's reconnection budget: it gives up at once, naming it, and never reconnects", async () => {
    const s = await start({ faults: { dropAnswerStream: true, dropRetryMs: 600_000 } });
    const client = new ToolClient(new StreamableHttpClientTransport(s.url, { resumeBudgetMs: 1000 }), {
      timeoutMs: 4000,
    });
    clients.push(client);
    await client.connect();
    await expect(client.callTool('echo', {})).rejects.toThrow(
      /retry field asks for 600000 ms before reconnecting, more than the 1000 ms left of the client's 1000-ms reconnection budget/,
    );
    // No bound in ms: the message above names the budget, where waiting out the client's 4 s
    // timeout would name that instead, and a bound near the real time fails under load.
    expect(received(s).filter((e) => e.http?.headers?.['last-event-id'] !== undefined)).toEqual([]);
  });

  test('dropAnswerStream: the replay is what came after the id named; an id never sent on that stream is 400', async () => {
    const s = await start({ faults: { dropAnswerStream: true } });
    const init = await post(s.url, INIT);
    await init.text();
    const session = init.headers.get('mcp-session-id')!;
    await (
      await post(
        s.url,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { 'mcp-session-id': session },
      )
    ).text();
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } };
    const dropped = await (await post(s.url, call, { 'mcp-session-id': session })).text();
    expect(dropped).toBe('id: 2-0\nretry: 100\ndata: \n\n');
    const resume = (id: string) =>
      fetch(s.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': id },
      });
    const never = await resume('2-7');
    expect(never.status).toBe(400);
    expect(await never.text()).toMatch(/no such event was sent on that stream/);
    const replayed = await resume('2-0');
    expect(replayed.status).toBe(200);
    const text = await replayed.text();
    expect(text).toContain('id: 2-1\n');
    expect(text).toContain('"id":2,"result"');
  });

  test('resumption refused: a GET with Last-Event-ID is 400; the reference client gives up on the call', async () => {
    const { server: s, client } = await reference({
      faults: { dropAnswerStream: true, resumption: 'refused' },
    });
    await expect(client.callTool('echo', {})).rejects.toThrow(/Last-Event-ID/);
    const resumed = received(s).filter((e) => e.http?.headers?.['last-event-id'] !== undefined);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.every((e) => e.http?.method === 'GET' && e.http?.status === 400)).toBe(true);
  });

  test('requireProtocolVersion: a request without MCP-Protocol-Version is 400; the reference client sends it', async () => {
    const { server: s, client } = await reference({
      protocolVersion: '2025-06-18',
      faults: { requireProtocolVersion: true, httpAnswer: 'json' },
    });
    expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: '{}' }]);
    const session = received(s)[0]!.session;
    const bare = await post(s.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { 'mcp-session-id': session });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toMatch(
      /MCP-Protocol-Version missing/,
    );
  });

  test('MCP-Protocol-Version by revision: from 2025-06-18 one that is no MCP revision is 400; before, not read', async () => {
    for (const [revision, status] of [
      ['2025-03-26', 200],
      ['2025-06-18', 400],
      ['2025-11-25', 400],
    ] as const) {
      const s = await start({ protocolVersion: revision, faults: { httpAnswer: 'json' } });
      const init = await post(s.url, INIT);
      await init.text();
      const session = init.headers.get('mcp-session-id')!;
      const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
      const bad = await post(s.url, ping, {
        'mcp-session-id': session,
        'mcp-protocol-version': '1999-01-01',
      });
      expect([revision, bad.status]).toEqual([revision, status]);
      // Without the header, or with the negotiated one, the request is served.
      expect((await post(s.url, ping, { 'mcp-session-id': session })).status).toBe(200);
      const named = await post(s.url, ping, { 'mcp-session-id': session, 'mcp-protocol-version': revision });
      expect(named.status).toBe(200);
      await s.close();
      server = undefined;
    }
  });

  test('getStream refused is 405; json answers send the ping of pingFirst on the GET stream', async () => {
    const refused = await start({ faults: { getStream: 'refused' } });
    const session = (await post(refused.url, INIT)).headers.get('mcp-session-id')!;
    const get = await fetch(refused.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    expect(get.status).toBe(405);
    await refused.close();
    const { server: s, client } = await reference({ faults: { httpAnswer: 'json', pingFirst: true } });
    expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: '{}' }]);
    const pingAnswer = received(s).find((e) => (e.value as { id?: unknown } | undefined)?.id === 9001);
    expect(pingAnswer?.value).toEqual({ jsonrpc: '2.0', id: 9001, result: {} });
  });

  test('closeStreamAfter: after the initialize answer every connection is cut; the client fails at once', async () => {
    const s = await start({ faults: { closeStreamAfter: 1 } });
    const client = new ToolClient(new StreamableHttpClientTransport(s.url), { timeoutMs: 25_000 });
    clients.push(client);
    const started = Date.now();
    await expect(client.connect()).rejects.toThrow(/POST failed/);
    // Only waiting out the client's 25 s timeout is the fault: a bound near the real time fails
    // under load.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(s.journal().some((e) => e.direction === 'sent' && e.kind === 'closed')).toBe(true);
    expect(received(s).map((e) => e.http?.status)).toEqual([200, 0]);
  });

  test('Host and Origin are checked (403); credentials are redacted in the journal', async () => {
    const s = await start();
    const foreign = await post(s.url, INIT, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    await post(s.url, INIT, { authorization: 'Bearer sk-secret-123', 'x-api-key': 'k-456' });
    const entry = received(s).at(-1)!;
    expect(entry.http?.headers?.authorization).toBe('Bearer [redacted]');
    expect(JSON.stringify(s.journal())).not.toMatch(/sk-secret-123|k-456/);
  });

  test(`at most ${MAX_OPEN_HTTP_SESSIONS} sessions stay open: the oldest is ended`, async () => {
    const built = buildStreamableHttpMockToolServer({ faults: { httpAnswer: 'json' } });
    const ids: string[] = [];
    for (let i = 0; i <= MAX_OPEN_HTTP_SESSIONS; i++) {
      const r = await built.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT },
        payload: JSON.stringify(INIT),
      });
      ids.push(String(r.headers['mcp-session-id']));
    }
    expect(built.sessions.size).toBe(MAX_OPEN_HTTP_SESSIONS);
    expect(built.sessions.has(ids[0]!)).toBe(false);
    expect(built.sessions.has(ids.at(-1)!)).toBe(true);
    await built.app.close();
  });
});
