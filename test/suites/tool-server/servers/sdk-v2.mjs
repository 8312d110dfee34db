// A tool server built with v2 of the official SDK (@modelcontextprotocol/server, which replaces
// @modelcontextprotocol/sdk), for the interop tests. Its tools are annotated read-only, so the
// suite calls them.
//   node sdk-v2.mjs              (StdioServerTransport)
//   node sdk-v2.mjs --port N     (Streamable HTTP on any path, as the node:http example of
//                                 @modelcontextprotocol/node wires it: the Host and Origin
//                                 guards, then a server and a stateless transport per request)
//   node sdk-v2.mjs --port N --stateful   (the same guards, then sessions: a transport per
//                                 session, found by its Mcp-Session-Id, as v1's examples route
//                                 them: 404 for an unknown session, 400 without one)
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { isInitializeRequest, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'wirecheck-sdk-v2-fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns its message.',
      inputSchema: z.object({ message: z.string().describe('text to send back') }),
      annotations: { readOnlyHint: true },
    },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: z.object({
        a: z.number().describe('first addend'),
        b: z.number().default(0).describe('second addend'),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

const i = process.argv.indexOf('--port');
if (i < 0) {
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  await build().connect(new StdioServerTransport());
} else {
  const { localhostHostValidation, localhostOriginValidation, NodeStreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/node');
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const sessions = new Map();
  const refuse = (res, status, code, message) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  };
  /** A session's transport, a new one for an initialize, or undefined once refused. */
  async function transportFor(req, res, body) {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId && sessions.has(sessionId)) return sessions.get(sessionId);
    if (!sessionId && req.method === 'POST' && isInitializeRequest(body)) {
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, created),
        onsessionclosed: (id) => sessions.delete(id),
      });
      await build().connect(created);
      return created;
    }
    if (sessionId) refuse(res, 404, -32001, 'Session not found');
    else refuse(res, 400, -32000, 'Bad Request: No valid session ID provided');
    return undefined;
  }
  const stateful = process.argv.includes('--stateful');
  http
    .createServer(async (req, res) => {
      if (!validateHost(req, res) || !validateOrigin(req, res)) return;
      if (!stateful) {
        const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await build().connect(transport);
        return transport.handleRequest(req, res);
      }
      let body;
      if (req.method === 'POST') {
        let text = '';
        for await (const chunk of req) text += chunk;
        try {
          body = JSON.parse(text);
        } catch {
          return refuse(res, 400, -32700, 'Parse error');
        }
      }
      const transport = await transportFor(req, res, body);
      if (transport) await transport.handleRequest(req, res, body);
    })
    .listen(Number(process.argv[i + 1]), '127.0.0.1');
}
process.on('SIGTERM', () => process.exit(0));
