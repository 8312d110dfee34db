// A tool server built with the official MCP SDK over Streamable HTTP (McpServer +
// StreamableHTTPServerTransport on raw node:http), routed as the SDK's own example
// (examples/server/simpleStreamableHttp.js) does: one transport per session, 404 for an
// unknown session, 400 without one. For the interop tests and the bench:
//   node sdk-streamable.mjs --port N [--json] [--no-origin-check] [--event-store [--ordered | --same-ms]]
// Origin validation is the transport's own (enableDnsRebindingProtection with allowedOrigins);
// --no-origin-check leaves it at the SDK's default (off). --event-store gives the transport the SDK's
// InMemoryEventStore (its example of resumability: event ids, Last-Event-ID replay). That store
// replays a stream's events sorted by id, `<stream>_<Date.now()>_<random>`, so two events of one
// millisecond replay in random order. --ordered ends each id with a rising counter instead of the
// random part (events of one millisecond keep their order); --same-ms freezes the clock and ends
// each id with a falling counter (every stream's events replay in reverse: the store's race, made
// certain).

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'wirecheck-sdk-streamable-fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns its text.',
      inputSchema: { text: z.string().describe('text to send back') },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
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

const argv = process.argv.slice(2);
const port = Number(argv[argv.indexOf('--port') + 1] ?? 0);
const json = argv.includes('--json');
const originCheck = !argv.includes('--no-origin-check');
const eventStore = argv.includes('--event-store');
const idOrder = argv.includes('--ordered') ? 'ordered' : argv.includes('--same-ms') ? 'same-ms' : 'sdk';

/** The SDK's store, with the last part of its event ids changed as --ordered or --same-ms asks. */
class Store extends InMemoryEventStore {
  count = 0;
  generateEventId(streamId) {
    if (idOrder === 'sdk') return super.generateEventId(streamId);
    this.count += 1;
    const n = idOrder === 'ordered' ? this.count : 1e9 - this.count;
    const ms = idOrder === 'ordered' ? Date.now() : 1_800_000_000_000;
    return `${streamId}_${ms}_${String(n).padStart(10, '0')}`;
  }
}
const sessions = new Map();

const refuse = (res, status, code, message) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
};

const httpServer = http.createServer(async (req, res) => {
  if (!req.url.startsWith('/mcp')) return refuse(res, 404, -32000, 'Not found');
  const sessionId = req.headers['mcp-session-id'];
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
  try {
    const transport = sessionId ? sessions.get(sessionId) : undefined;
    if (transport) return await transport.handleRequest(req, res, body);
    if (!sessionId && req.method === 'POST' && isInitializeRequest(body)) {
      const local = [
        `http://127.0.0.1:${httpServer.address().port}`,
        `http://localhost:${httpServer.address().port}`,
      ];
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        ...(eventStore ? { eventStore: new Store() } : {}),
        ...(originCheck ? { enableDnsRebindingProtection: true, allowedOrigins: local } : {}),
        onsessioninitialized: (id) => sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await build().connect(created);
      return await created.handleRequest(req, res, body);
    }
    if (sessionId) return refuse(res, 404, -32001, 'Session not found');
    return refuse(res, 400, -32000, 'Bad Request: No valid session ID provided');
  } catch (e) {
    if (!res.headersSent) refuse(res, 500, -32603, `Internal server error: ${e}`);
  }
});
httpServer.listen(port, '127.0.0.1', () => {
  process.stderr.write(`SDK Streamable HTTP server on http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
