// A tool server built with tmcp (npm tmcp, an MCP implementation of its own, not the SDK's),
// for the interop tests:
//   node tmcp.mjs                      (stdio)
//   node tmcp.mjs --sse --port N       (legacy SSE: /sse, POST /message)
//   node tmcp.mjs --http --port N      (Streamable HTTP on /mcp, taking only its own origin, as
//                                       tmcp's README advises: by default it takes any)
import * as http from 'node:http';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { McpServer } from 'tmcp';
import { z } from 'zod';

const server = new McpServer(
  { name: 'wirecheck-tmcp-fixture', version: '1.0.0', description: 'interop fixture' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: { listChanged: true } } },
);
server.tool(
  {
    name: 'echo',
    description: 'Returns its message.',
    schema: z.object({ message: z.string().describe('text to send back') }),
    annotations: { readOnlyHint: true },
  },
  async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
);
server.tool(
  {
    name: 'add',
    description: 'Adds two numbers.',
    schema: z.object({ a: z.number().describe('first addend'), b: z.number().describe('second addend') }),
    annotations: { readOnlyHint: true },
  },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
);

const i = process.argv.indexOf('--port');
const port = Number(process.argv[i + 1]);
if (i < 0) {
  const { StdioTransport } = await import('@tmcp/transport-stdio');
  new StdioTransport(server).listen();
} else {
  const transport = process.argv.includes('--http')
    ? new (await import('@tmcp/transport-http')).HttpTransport(server, {
        path: '/mcp',
        allowedOrigins: [`http://127.0.0.1:${port}`, `http://localhost:${port}`],
      })
    : new (await import('@tmcp/transport-sse')).SseTransport(server, { path: '/sse', endpoint: '/message' });
  const httpServer = http.createServer(
    createRequestListener(
      async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }),
    ),
  );
  httpServer.listen(port, '127.0.0.1');
}
process.on('SIGTERM', () => process.exit(0));
