import { afterEach, describe, expect, test } from 'vitest';
import { ToolClient } from '../../src/clients/tools/index.js';
import {
  isSessionExpired,
  StreamableHttpClientTransport,
  type TransportError,
} from '../../src/transports/index.js';
import {
  type ScriptedHttpServer,
  type ScriptedHttpServerOptions,
  startScriptedHttpServer,
} from '../clients/tools/streamable-http-server.js';

const servers: ScriptedHttpServer[] = [];
const clients: ToolClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function connect(options: ScriptedHttpServerOptions = {}, transportOptions = {}) {
  const server = await startScriptedHttpServer(options);
  servers.push(server);
  const warnings: string[] = [];
  const transport = new StreamableHttpClientTransport(server.url, { resumeDelayMs: 10, ...transportOptions });
  const errors: TransportError[] = [];
  const client = new ToolClient(transport, { timeoutMs: 3000, onWarning: (w) => warnings.push(w) });
  clients.push(client);
  await client.connect();
  const origOnError = transport.onerror;
  transport.onerror = (e) => {
    errors.push(e);
    origOnError?.(e);
  };
  return { server, client, transport, warnings, errors };
}

const posts = (s: ScriptedHttpServer) => s.exchanges.filter((e) => e.method === 'POST');
const methodOf = (body: string) => (JSON.parse(body) as { method?: string }).method;

describe('StreamableHttpClientTransport', () => {
  test.each(['json', 'sse'] as const)(
    'a session over %s answers: headers, session id, version, DELETE',
    async (answer) => {
      const { server, client } = await connect({ answer });
      const result = await client.callTool('echo', { text: 'hi' });
      expect(result).toEqual({ content: [{ type: 'text', text: '{"text":"hi"}' }] });
      await client.close();
      const sent = posts(server);
      expect(sent.map((e) => methodOf(e.body))).toEqual([
        'initialize',
        'notifications/initialized',
        'tools/call',
      ]);
      for (const e of sent) {
        expect(e.headers.accept).toBe('application/json, text/event-stream');
        expect(e.headers['content-type']).toBe('application/json');
      }
      expect(sent[0]!.headers['mcp-session-id']).toBeUndefined();
      expect(sent[0]!.headers['mcp-protocol-version']).toBeUndefined();
      for (const e of sent.slice(1)) {
        expect(e.headers['mcp-session-id']).toBe('session-1');
        // The session negotiated 2024-11-05: MCP-Protocol-Version exists from 2025-06-18 on, so ToolClient
        // gives the transport no version (the header under 2025-06-18 and later: test/mocks/tools/serve-cli.test.ts).
        expect(e.headers['mcp-protocol-version']).toBeUndefined();
      }
      const deletes = server.exchanges.filter((e) => e.method === 'DELETE');
      expect(deletes).toHaveLength(1);
      expect(deletes[0]!.headers['mcp-session-id']).toBe('session-1');
      // The optional GET stream was asked for once, with the session, and refused (405).
      const gets = server.exchanges.filter((e) => e.method === 'GET');
      expect(gets.map((g) => [g.status, g.headers['mcp-session-id'], g.headers.accept])).toEqual([
        [405, 'session-1', 'text/event-stream'],
      ]);
    },
  );

  test('a 404 to a request of the session starts a new session and sends the request again', async () => {
    const { server, client, warnings } = await connect({ expireFirstSession: true });
    const result = await client.callTool('echo', { n: 1 });
    expect(result.content).toEqual([{ type: 'text', text: '{"n":1}' }]);
    const sent = posts(server).map((e) => [methodOf(e.body), e.status, e.headers['mcp-session-id']]);
    expect(sent).toEqual([
      ['initialize', 200, undefined],
      ['notifications/initialized', 202, 'session-1'],
      ['tools/call', 404, 'session-1'],
      ['initialize', 200, undefined],
      ['notifications/initialized', 202, 'session-2'],
      ['tools/call', 200, 'session-2'],
    ]);
    expect(warnings.some((w) => w.includes('HTTP 404') && w.includes('new session'))).toBe(true);
  });

  test('a dropped answer stream is resumed with GET and Last-Event-ID', async () => {
    const { server, client } = await connect({ dropFirstCall: 'with-id' });
    const result = await client.callTool('echo', { a: 1 });
    expect(result.content).toEqual([{ type: 'text', text: '{"a":1}' }]);
    const resumed = server.exchanges.filter(
      (e) => e.method === 'GET' && e.headers['last-event-id'] !== undefined,
    );
    expect(resumed.map((g) => [g.headers['last-event-id'], g.headers['mcp-session-id'], g.status])).toEqual([
      ['call-1', 'session-1', 200],
    ]);
  });

  test('a dropped answer stream without an event id fails the request at once, naming why', async () => {
    const { client } = await connect({ dropFirstCall: 'no-id' });
    const started = Date.now();
    await expect(client.callTool('echo', {})).rejects.toThrow(
      /ended before the responses to request 2 arrived, and it carried no event id/,
    );
    expect(Date.now() - started).toBeLessThan(2500);
  });

  test('a JSON answer past the byte limit is not read', async () => {
    const { client } = await connect({ hugeAnswerBytes: 300_000 }, { maxJsonBytes: 100_000 });
    await expect(client.callTool('echo', {})).rejects.toThrow(/past the 100000-byte limit/);
  });

  test('a POST answered 500 rejects with the status and body', async () => {
    const server = await startScriptedHttpServer({ postStatus: 500 });
    servers.push(server);
    const transport = new StreamableHttpClientTransport(server.url);
    await transport.start();
    const failure = await transport
      .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ kind: 'http', status: 500, input: '{"error":"scripted"}' });
    expect(isSessionExpired(failure)).toBe(false);
    await transport.close();
  });

  test('a ping request on the GET stream is answered by POST', async () => {
    const { server, client } = await connect({ getStream: 'ping' });
    const deadline = Date.now() + 2000;
    const answered = () => posts(server).some((e) => (JSON.parse(e.body) as { id?: unknown }).id === 'srv-1');
    while (!answered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const answer = posts(server).find((e) => (JSON.parse(e.body) as { id?: unknown }).id === 'srv-1');
    expect(JSON.parse(answer!.body)).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(answer!.headers['mcp-session-id']).toBe('session-1');
    await client.close();
  });
});
