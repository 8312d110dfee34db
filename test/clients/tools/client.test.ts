import { afterEach, describe, expect, test } from 'vitest';
import {
  ToolAbortError,
  ToolClient,
  ToolProtocolError,
  ToolServerError,
  ToolTimeoutError,
} from '../../../src/clients/tools/index.js';
import {
  createInMemoryPair,
  SseClientTransport,
  type Transport,
  TransportError,
} from '../../../src/transports/index.js';
import { VERSION } from '../../../src/version.js';
import { type SseServer, startSseServer } from './sse-server.js';

type Rpc = { jsonrpc: string; id?: number | string; method?: string; params?: Record<string, unknown> };

/**
 * The server end of an in-memory pair: records what arrives, answers with `script`
 * (`undefined` leaves a request unanswered).
 */
async function scripted(script: (m: Rpc, server: Transport) => unknown[] | undefined) {
  const [clientEnd, serverEnd] = createInMemoryPair();
  const seen: Rpc[] = [];
  serverEnd.onmessage = (m) => {
    seen.push(m as Rpc);
    for (const out of script(m as Rpc, serverEnd) ?? []) void serverEnd.send(out);
  };
  await serverEnd.start();
  const client = new ToolClient(clientEnd, { timeoutMs: 2000 });
  clients.push(client);
  return { client, seen, serverEnd };
}

const clients: ToolClient[] = [];
const servers: SseServer[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

const initResult = {
  protocolVersion: '2024-11-05',
  capabilities: { tools: {} },
  serverInfo: { name: 'scripted', version: '0.0.1' },
};

/** A well-behaved server: initialize, tools/list, tools/call echo, ping. */
function polite(m: Rpc): unknown[] | undefined {
  if (m.id === undefined) return [];
  switch (m.method) {
    case 'initialize':
      return [{ jsonrpc: '2.0', id: m.id, result: initResult }];
    case 'tools/list':
      return [
        { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } },
      ];
    case 'tools/call':
      return [
        {
          jsonrpc: '2.0',
          id: m.id,
          result: { content: [{ type: 'text', text: JSON.stringify(m.params) }] },
        },
      ];
    case 'ping':
      return [{ jsonrpc: '2.0', id: m.id, result: {} }];
    default:
      return [{ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }];
  }
}

async function until(condition: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('tool client lifecycle (spec "Tool-server objects", "Versioning")', () => {
  test('initialize carries protocolVersion 2024-11-05, capabilities and clientInfo; the initialized notification precedes any other request', async () => {
    const { client, seen } = await scripted(polite);
    const result = await client.connect();
    expect(result.serverInfo.name).toBe('scripted');
    await client.listTools();
    expect(seen[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'wirecheck', version: VERSION },
      },
    });
    expect(seen[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(seen[2]?.method).toBe('tools/list');
  });

  test('request ids are unique increasing integers, also for requests in flight together', async () => {
    const { client, seen } = await scripted(polite);
    await client.connect();
    await Promise.all([
      client.listTools(),
      client.callTool('echo', { a: 1 }),
      client.ping(),
      client.callTool('echo'),
    ]);
    const ids = seen.filter((m) => m.id !== undefined).map((m) => m.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
  });

  test('a call without arguments sends none (absent arguments count as empty); with arguments they are sent as given', async () => {
    const { client, seen } = await scripted(polite);
    await client.connect();
    await client.callTool('echo');
    await client.callTool('echo', { text: 'hi' });
    const calls = seen.filter((m) => m.method === 'tools/call').map((m) => m.params);
    expect(calls).toEqual([{ name: 'echo' }, { name: 'echo', arguments: { text: 'hi' } }]);
  });

  test('a tool result with isError true is a result, not a failure', async () => {
    const { client } = await scripted((m) =>
      m.method === 'tools/call'
        ? [{ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'no' }], isError: true } }]
        : polite(m),
    );
    await client.connect();
    await expect(client.callTool('echo')).resolves.toEqual({
      content: [{ type: 'text', text: 'no' }],
      isError: true,
    });
  });

  test('a server that answers another protocolVersion is refused', async () => {
    const { client } = await scripted((m) =>
      m.method === 'initialize'
        ? [{ jsonrpc: '2.0', id: m.id, result: { ...initResult, protocolVersion: '1999-01-01' } }]
        : polite(m),
    );
    await expect(client.connect()).rejects.toThrow(/1999-01-01/);
  });
});

describe('tool client tolerance (spec "Tool-server SSE events": keep-alive ping requests)', () => {
  test("the server's ping request is answered with an empty result, another request with -32601", async () => {
    const { client, seen, serverEnd } = await scripted((m) => {
      if (m.method !== 'tools/list') return polite(m);
      return [
        { jsonrpc: '2.0', id: 'srv-1', method: 'ping' },
        { jsonrpc: '2.0', id: 'srv-2', method: 'roots/list' },
        ...(polite(m) ?? []),
      ];
    });
    void serverEnd;
    await client.connect();
    await client.listTools();
    await until(() => seen.filter((m) => m.id === 'srv-1' || m.id === 'srv-2').length === 2, 'the answers');
    expect(seen.find((m) => m.id === 'srv-1')).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(seen.find((m) => m.id === 'srv-2')).toMatchObject({ id: 'srv-2', error: { code: -32601 } });
  });

  test('notifications it does not know, replies to nobody and non-JSON-RPC values between request and reply are tolerated', async () => {
    const notifications: string[] = [];
    const warnings: string[] = [];
    const [clientEnd, serverEnd] = createInMemoryPair();
    serverEnd.onmessage = (raw) => {
      const m = raw as Rpc;
      if (m.method === 'tools/list') {
        void serverEnd.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        void serverEnd.send({ jsonrpc: '2.0', method: 'notifications/whatever', params: { x: 1 } });
        void serverEnd.send({ jsonrpc: '2.0', id: 999, result: {} });
        void serverEnd.send({ hello: 'world' });
      }
      for (const out of polite(m) ?? []) void serverEnd.send(out);
    };
    await serverEnd.start();
    const client = new ToolClient(clientEnd, {
      onNotification: (n) => notifications.push(n.method),
      onWarning: (w) => warnings.push(w),
    });
    clients.push(client);
    await client.connect();
    await expect(client.listTools()).resolves.toMatchObject({ tools: [{ name: 'echo' }] });
    expect(notifications).toEqual(['notifications/tools/list_changed', 'notifications/whatever']);
    expect(warnings).toHaveLength(2);
  });
});

describe('tool client errors', () => {
  test('a JSON-RPC error reply becomes a ToolServerError with code, message and data', async () => {
    const { client } = await scripted((m) =>
      m.method === 'tools/call'
        ? [
            {
              jsonrpc: '2.0',
              id: m.id,
              error: { code: -32602, message: 'Unknown tool: nope', data: { name: 'nope' } },
            },
          ]
        : polite(m),
    );
    await client.connect();
    const error = await client.callTool('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolServerError);
    expect(error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: nope'),
      data: { name: 'nope' },
    });
  });

  test('a result of the wrong shape is a ToolProtocolError saying what was expected and what arrived', async () => {
    const { client } = await scripted((m) =>
      m.method === 'tools/list' ? [{ jsonrpc: '2.0', id: m.id, result: { tools: 'none' } }] : polite(m),
    );
    await client.connect();
    const error = (await client.listTools().catch((e: unknown) => e)) as ToolProtocolError;
    expect(error).toBeInstanceOf(ToolProtocolError);
    expect(error.message).toMatch(/tools\/list result shape at tools/);
    expect(error.actual).toEqual({ tools: 'none' });
  });

  test('no reply in time is a ToolTimeoutError, and the request is cancelled', async () => {
    const { client, seen } = await scripted((m) => (m.method === 'tools/call' ? undefined : polite(m)));
    await client.connect();
    const error = await client.callTool('slow', {}, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolTimeoutError);
    await until(() => seen.some((m) => m.method === 'notifications/cancelled'), 'the cancellation');
    expect(seen.find((m) => m.method === 'notifications/cancelled')?.params).toMatchObject({ requestId: 2 });
  });

  test('an aborted signal rejects the request with a ToolAbortError', async () => {
    const { client } = await scripted((m) => (m.method === 'tools/call' ? undefined : polite(m)));
    await client.connect();
    const controller = new AbortController();
    const call = client.callTool('slow', {}, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(ToolAbortError);
  });

  test('the transport closing with requests in flight rejects them with a TransportError', async () => {
    const { client, serverEnd } = await scripted((m) => (m.method === 'tools/call' ? undefined : polite(m)));
    await client.connect();
    const call = client.callTool('slow');
    await new Promise((r) => setTimeout(r, 5));
    await serverEnd.close();
    await expect(call).rejects.toBeInstanceOf(TransportError);
    await expect(client.listTools()).rejects.toBeInstanceOf(TransportError);
  });

  test('a request before connect() is a usage error', async () => {
    const { client } = await scripted(polite);
    expect(() => client.listTools()).toThrow(/before connect/);
  });
});

describe('tool client over SSE (spec "SSE tool-server session")', () => {
  test('a reply that arrives on the stream before the POST is acknowledged still reaches its request', async () => {
    const s = await startSseServer({ replyBeforeAck: true });
    servers.push(s);
    const client = new ToolClient(new SseClientTransport(s.url));
    clients.push(client);
    await client.connect();
    await expect(client.callTool('echo', { text: 'early' })).resolves.toEqual({
      content: [{ type: 'text', text: 'early' }],
    });
  });

  test('comments, unknown events, unknown notifications and server pings on the stream do not disturb a call', async () => {
    const s = await startSseServer({ noiseBeforeReply: true, pingBefore: 'tools/call' });
    servers.push(s);
    const client = new ToolClient(new SseClientTransport(s.url));
    clients.push(client);
    await client.connect();
    await expect(client.callTool('echo', { text: 'x' })).resolves.toEqual({
      content: [{ type: 'text', text: 'x' }],
    });
    await until(() => s.posts.length >= 5, 'the ping answers');
    expect(s.posts).toContainEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(s.posts).toContainEqual(
      expect.objectContaining({ id: 'srv-2', error: expect.objectContaining({ code: -32601 }) }),
    );
  });

  test('a POST answered 404 fails the request with the http TransportError', async () => {
    const s = await startSseServer({ postStatus: 404 });
    servers.push(s);
    const client = new ToolClient(new SseClientTransport(s.url));
    clients.push(client);
    await expect(client.connect()).rejects.toMatchObject({
      name: 'TransportError',
      kind: 'http',
      status: 404,
    });
  });

  test('the stream closed mid-session fails the request in flight', async () => {
    const s = await startSseServer({ closeStreamOn: 'tools/call' });
    servers.push(s);
    const client = new ToolClient(new SseClientTransport(s.url));
    clients.push(client);
    await client.connect();
    await expect(client.callTool('echo')).rejects.toMatchObject({ kind: 'connection' });
  });
});
