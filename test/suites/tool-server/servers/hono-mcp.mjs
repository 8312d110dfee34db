// A tool server on Hono with @hono/mcp's StreamableHTTPTransport (a Streamable HTTP transport
// of its own, on the official SDK's McpServer), for the interop tests. Its tools are annotated
// read-only, so the suite calls them. No Origin validation, as in the README: the transport's own
// (enableDnsRebindingProtection with allowedOrigins) also refuses every request without an Origin
// header, which non-browser clients (wirecheck included) do not send, so nothing could be tested.
//   node hono-mcp.mjs --port N              (one stateless transport, as @hono/mcp's README wires it)
//   node hono-mcp.mjs --port N --sessions   (a transport per session, found by Mcp-Session-Id:
//                                            404 for an unknown session, 400 without one)
import { randomUUID } from 'node:crypto';
import { StreamableHTTPTransport } from '@hono/mcp';
import { serve } from '@hono/node-server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Hono } from 'hono';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'wirecheck-hono-mcp-fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns its message.',
      inputSchema: { message: z.string().describe('text to send back') },
      annotations: { readOnlyHint: true },
    },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number().describe('first addend'), b: z.number().describe('second addend') },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const app = new Hono();
if (!process.argv.includes('--sessions')) {
  const server = build();
  const transport = new StreamableHTTPTransport();
  app.all('/mcp', async (c) => {
    if (!server.isConnected()) await server.connect(transport);
    return transport.handleRequest(c);
  });
} else {
  const sessions = new Map();
  app.all('/mcp', async (c) => {
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId && sessions.has(sessionId)) return sessions.get(sessionId).handleRequest(c);
    if (sessionId)
      return c.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, 404);
    const body =
      c.req.method === 'POST'
        ? await c.req.raw
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    if (!isInitializeRequest(body))
      return c.json(
        {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
          id: null,
        },
        400,
      );
    const transport = new StreamableHTTPTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
      onsessionclosed: (id) => sessions.delete(id),
    });
    await build().connect(transport);
    return transport.handleRequest(c);
  });
}
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
process.on('SIGTERM', () => process.exit(0));
