// A tool server built with the official MCP SDK (McpServer), for the interop tests:
//   node sdk.mjs --transport stdio
//   node sdk.mjs --transport sse --port N   (SSEServerTransport on raw node:http: GET /sse, POST /messages)
// The routing (sessionId -> transport) is the application's job in the SDK; this follows the
// SDK's own examples, answering 400 for an unknown session as they do.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'wirecheck-sdk-fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns its message.',
      inputSchema: { message: z.string().describe('text to send back') },
    },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: {
        a: z.number().describe('first addend'),
        b: z.number().default(0).describe('second addend'),
      },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'diagnostics',
    {
      description: 'Server status and process information.',
      inputSchema: { verbose: z.boolean().default(false).describe('more detail') },
    },
    async ({ verbose }) => {
      const lines = ['status: ok', `pid: ${process.pid}`, `uptime: ${process.uptime().toFixed(1)} s`];
      if (verbose) lines.push(`memory rss: ${process.memoryUsage().rss}`);
      return { content: [{ type: 'text', text: lines.join('\n') }] };
    },
  );
  return server;
}

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

if (opt('--transport', 'stdio') === 'stdio') {
  await build().connect(new StdioServerTransport());
} else {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      await build().connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (transport === undefined) {
        res.writeHead(400).end('Session not found');
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  httpServer.listen(Number(opt('--port', '0')), '127.0.0.1', () => {
    console.error(`listening on http://127.0.0.1:${httpServer.address().port}/sse`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
