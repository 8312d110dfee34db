import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { probeToolServer, ToolClient } from '../../../src/clients/tools/index.js';
import { resultText } from '../../../src/protocol/mcp/index.js';
import {
  ChildProcessTransport,
  SseClientTransport,
  StreamableHttpClientTransport,
} from '../../../src/transports/index.js';
import { EVERYTHING, FIXTURES, freePort, type Started, startNode, waitForPort } from './processes.js';

/**
 * Interop: the reference client against servers it did not grow up with, the official
 * SDK's McpServer (stdio and legacy SSE) and @modelcontextprotocol/server-everything.
 */
const clients: ToolClient[] = [];
const processes: Started[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const p of processes.splice(0)) await p.kill();
});

function client(
  transport: ChildProcessTransport | SseClientTransport | StreamableHttpClientTransport,
  notifications: string[] = [],
): ToolClient {
  const c = new ToolClient(transport, {
    timeoutMs: 10_000,
    onNotification: (n) => notifications.push(n.method),
  });
  clients.push(c);
  return c;
}

async function sdkFixture(client: ToolClient): Promise<void> {
  const init = await client.connect();
  expect(init).toMatchObject({
    protocolVersion: '2024-11-05',
    serverInfo: { name: 'sdk-fixture' },
    capabilities: { tools: {} },
  });
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'fail', 'status']);
  expect(tools.find((t) => t.name === 'echo')?.inputSchema.properties?.text?.type).toBe('string');
  expect(await client.callTool('echo', { text: 'héllo' })).toEqual({
    content: [{ type: 'text', text: 'héllo' }],
  });
  expect(resultText(await client.callTool('status'))).toBe('all good');
  expect(await client.callTool('fail', {})).toMatchObject({ isError: true });
  // The SDK answers an unknown tool with an isError result (FACTS.md), which is still a result.
  expect(await client.callTool('no-such-tool', {})).toMatchObject({ isError: true });
  await client.ping();
}

describe('interop with the official MCP SDK (McpServer)', () => {
  test('over stdio (StdioServerTransport): initialize, list, call with and without arguments, ping', async () => {
    const transport = new ChildProcessTransport(`node ${join(FIXTURES, 'sdk-stdio-server.mjs')}`);
    await sdkFixture(client(transport));
    expect(transport.stderrTail).toContain('sdk-stdio-server: starting');
  });

  test('over legacy HTTP+SSE (SSEServerTransport on node:http): the same session, replies on the stream after 202', async () => {
    const server = startNode([join(FIXTURES, 'sdk-sse-server.mjs')]);
    processes.push(server);
    const { url } = JSON.parse(await server.firstLine()) as { url: string };
    const transport = new SseClientTransport(url);
    await sdkFixture(client(transport));
    expect(transport.endpoint?.pathname).toBe('/messages');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const probe = await probeToolServer(url);
    expect(probe).toMatchObject({ healthy: true, post: { status: 202 }, initializedStatus: 202 });
  });
});

describe('interop with the official SDK over Streamable HTTP (StreamableHTTPServerTransport on node:http)', () => {
  for (const json of [false, true]) {
    test(`${json ? 'JSON' : 'event-stream'} answers: the same session, its id kept, DELETE at close`, async () => {
      const server = startNode(
        [join(FIXTURES, 'sdk-streamable-http-server.mjs')],
        json ? { JSON_RESPONSE: '1' } : {},
      );
      processes.push(server);
      const { url } = JSON.parse(await server.firstLine()) as { url: string };
      const transport = new StreamableHttpClientTransport(url);
      const c = client(transport);
      await sdkFixture(c);
      const session = transport.sessionId;
      expect(session).toMatch(/^[0-9a-f-]{36}$/);
      // The session speaks 2024-11-05 (asked, and answered): MCP-Protocol-Version exists from 2025-06-18 on.
      expect(transport.protocolVersion).toBeUndefined();
      await c.close();
      await expect.poll(() => server.stderr(), { timeout: 5000 }).toContain(`DELETE ${session}`);
    });
  }
});

describe('interop with @modelcontextprotocol/server-everything', () => {
  async function everything(c: ToolClient): Promise<void> {
    const init = await c.connect();
    expect(init.protocolVersion).toBe('2024-11-05');
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(resultText(await c.callTool('echo', { message: 'from wirecheck' }))).toBe('Echo: from wirecheck');
    expect(resultText(await c.callTool('get-sum', { a: 2, b: 3 }))).toContain('5');
    await c.ping();
  }

  test('over stdio', async () => {
    const notifications: string[] = [];
    await everything(client(new ChildProcessTransport(`node ${EVERYTHING} stdio`), notifications));
    // Whatever it announced (tools/list_changed while registering tools) was tolerated.
    expect(notifications.every((m) => m.startsWith('notifications/'))).toBe(true);
  });

  test('over sse (POST path /message)', async () => {
    const port = await freePort();
    const server = startNode([EVERYTHING, 'sse'], { PORT: String(port) });
    processes.push(server);
    await waitForPort(port);
    const transport = new SseClientTransport(`http://127.0.0.1:${port}/sse`);
    await everything(client(transport));
    expect(transport.endpoint?.pathname).toBe('/message');
    const probe = await probeToolServer(`http://127.0.0.1:${port}/sse`);
    expect(probe).toMatchObject({ healthy: true, post: { status: 202 } });
    expect(probe.endpoint?.data).toMatch(/^\/message\?sessionId=/);
  });
});
