import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, test } from 'vitest';
import {
  type RunningStreamableToolServer,
  type RunningToolServer,
  startStreamableToolServer,
  startToolServer,
} from '../../../src/servers/tools/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
let client: Client | undefined;
let server: RunningToolServer | undefined;
let streamable: RunningStreamableToolServer | undefined;

afterEach(async () => {
  // Closing the stdio client ends the child (stdin end, then SIGTERM, then SIGKILL).
  await client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
  await streamable?.close();
  streamable = undefined;
});

async function exercise(c: Client, transportName: string): Promise<void> {
  expect(c.getServerVersion()?.name).toBe('wirecheck-reference-tools');
  expect(c.getServerCapabilities()?.tools).toBeDefined();
  const { tools } = await c.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['diagnostic', 'echo', 'slow']));
  const echo = await c.callTool({ name: 'echo', arguments: { text: 'hello from the SDK' } });
  expect(echo.content).toEqual([{ type: 'text', text: 'hello from the SDK' }]);
  const diagnostic = await c.callTool({ name: 'diagnostic', arguments: { verbose: true } });
  const content = diagnostic.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]?.text).toMatch(/^status: ok$/m);
  expect(content[0]?.text).toMatch(new RegExp(`^transport: ${transportName}$`, 'm'));
  await expect(c.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
}

describe('interop with the official MCP SDK client (@modelcontextprotocol/sdk)', () => {
  test('over stdio: initialize, list tools, call echo and diagnostic', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/wirecheck.js', 'serve', 'tools', '--transport', 'stdio'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    client = new Client({ name: 'wirecheck-interop', version: '0' });
    try {
      await client.connect(transport);
      await exercise(client, 'stdio');
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; server stderr: ${stderr}`, {
        cause: e,
      });
    }
  });

  test('over SSE: initialize, list tools, call echo and diagnostic', async () => {
    server = await startToolServer({ port: 0 });
    client = new Client({ name: 'wirecheck-interop', version: '0' });
    await client.connect(new SSEClientTransport(new URL(server.url)));
    await exercise(client, 'sse');
    expect(server.sessionCount()).toBe(1);
  });

  for (const answer of ['sse', 'json'] as const) {
    test(`over Streamable HTTP (${answer} answers): initialize at 2025-11-25, list tools, call, end the session`, async () => {
      streamable = await startStreamableToolServer({ port: 0, answer });
      client = new Client({ name: 'wirecheck-interop', version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(streamable.url));
      await client.connect(transport);
      expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
      expect(transport.protocolVersion).toBe('2025-11-25');
      await exercise(client, 'http');
      expect(streamable.sessionCount()).toBe(1);
      await transport.terminateSession();
      expect(streamable.sessionCount()).toBe(0);
    });
  }
});
