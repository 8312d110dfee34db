// A tool server built with mcp-lite (npm mcp-lite, a Streamable HTTP server of its own, not
// the SDK's), for the interop tests, with the in-memory sessions and the Host and Origin
// checks its README gives for a server run locally:
//   node mcp-lite.mjs --port N   (Streamable HTTP on /mcp)
import * as http from 'node:http';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { InMemorySessionAdapter, McpServer, StreamableHttpTransport } from 'mcp-lite';
import { z } from 'zod';

const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const server = new McpServer({
  name: 'wirecheck-mcp-lite-fixture',
  version: '1.0.0',
  schemaAdapter: (schema) => z.toJSONSchema(schema),
});
server.tool('echo', {
  description: 'Returns its message.',
  inputSchema: z.object({ message: z.string().describe('text to send back') }),
  annotations: { readOnlyHint: true },
  handler: ({ message }) => ({ content: [{ type: 'text', text: message }] }),
});
server.tool('add', {
  description: 'Adds two numbers.',
  inputSchema: z.object({ a: z.number().describe('first addend'), b: z.number().describe('second addend') }),
  annotations: { readOnlyHint: true },
  handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
});
const transport = new StreamableHttpTransport({
  sessionAdapter: new InMemorySessionAdapter({ maxEventBufferSize: 1024 }),
  allowedHosts: ['127.0.0.1', `127.0.0.1:${port}`, 'localhost', `localhost:${port}`],
  allowedOrigins: [`http://127.0.0.1:${port}`, `http://localhost:${port}`],
});
const handle = transport.bind(server);
const httpServer = http.createServer(
  createRequestListener((request) =>
    new URL(request.url).pathname === '/mcp' ? handle(request) : new Response(null, { status: 404 }),
  ),
);
httpServer.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
