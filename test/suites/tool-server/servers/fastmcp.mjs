// A tool server built with the fastmcp framework (npm fastmcp), for the interop tests:
//   node fastmcp.mjs --port N   (httpStream: legacy SSE on /sse, Streamable HTTP on /mcp)
//   node fastmcp.mjs            (stdio)
import { FastMCP } from 'fastmcp';
import { z } from 'zod';

const server = new FastMCP({ name: 'wirecheck-fastmcp-fixture', version: '1.0.0' });
server.addTool({
  name: 'echo',
  description: 'Returns its message.',
  parameters: z.object({ message: z.string().describe('text to send back') }),
  annotations: { readOnlyHint: true },
  execute: async ({ message }) => message,
});
server.addTool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number().describe('first addend'), b: z.number().describe('second addend') }),
  annotations: { readOnlyHint: true },
  execute: async ({ a, b }) => String(a + b),
});
const i = process.argv.indexOf('--port');
if (i >= 0) {
  await server.start({
    transportType: 'httpStream',
    httpStream: { port: Number(process.argv[i + 1]), host: '127.0.0.1' },
  });
} else {
  await server.start({ transportType: 'stdio' });
}
process.on('SIGTERM', () => process.exit(0));
