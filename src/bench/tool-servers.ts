import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';
import { SESSION_QUERY_PARAM } from '../protocol/mcp/index.js';
import { startToolServer } from '../servers/tools/index.js';
import { echoReply } from './echo-answer.js';
import type { BenchServer } from './raw-server.js';
import { hostStreamableToolServers, type StreamableToolUrls } from './streamable-servers.js';

/** The stream URLs (`.../sse`) of the three SSE tool servers a run compares. */
export interface ToolUrls {
  /** The reference tool server (src/servers/tools). */
  reference: string;
  /** Raw node:http answering JSON-RPC over SSE with an echo, and nothing else. */
  raw: string;
  /** The MCP SDK's legacy SSEServerTransport + McpServer with the same echo tool. */
  sdk: string;
  /** The Streamable HTTP servers (streamable-servers.ts). */
  streamable: StreamableToolUrls;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, resolve);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/**
 * The baseline: `GET /sse` opens a stream whose first event announces
 * `/messages?sessionId=<id>`; a POST there is answered 202 and its JSON-RPC reply goes out
 * on that session's stream. Nothing else: no validation, no keep-alive, no bookkeeping.
 */
export async function startRawRpcServer(): Promise<BenchServer> {
  const sessions = new Map<string, ServerResponse>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const id = randomUUID();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`event: endpoint\ndata: /messages?${SESSION_QUERY_PARAM}=${id}\n\n`);
      sessions.set(id, res);
      res.on('close', () => sessions.delete(id));
      return;
    }
    const stream = sessions.get(url.searchParams.get(SESSION_QUERY_PARAM) ?? '');
    if (req.method !== 'POST' || url.pathname !== '/messages' || !stream) {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no such session"}');
      return;
    }
    readBody(req).then(
      (body) => {
        res.writeHead(202).end('Accepted');
        const reply = echoReply(JSON.parse(body));
        if (reply !== undefined) stream.write(`event: message\ndata: ${reply}\n\n`);
      },
      () => res.destroy(),
    );
  });
  const origin = await listen(server);
  return { url: `${origin}/sse`, close: closer(server) };
}

/**
 * The MCP SDK's legacy SSE server: one SSEServerTransport and one McpServer per stream
 * (an McpServer serves one transport), with an `echo` tool like the reference's.
 */
export async function startSdkRpcServer(): Promise<BenchServer> {
  const transports = new Map<string, SSEServerTransport>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      const mcp = new McpServer({ name: 'sdk-echo', version: '0' });
      mcp.registerTool(
        'echo',
        {
          description: 'Return the given text unchanged, as one text item.',
          inputSchema: { text: z.string() },
        },
        ({ text }) => ({ content: [{ type: 'text', text }] }),
      );
      mcp.connect(transport).catch(() => res.destroy());
      return;
    }
    const transport = transports.get(url.searchParams.get(SESSION_QUERY_PARAM) ?? '');
    if (req.method !== 'POST' || url.pathname !== '/messages' || !transport) {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no such session"}');
      return;
    }
    transport.handlePostMessage(req, res).catch(() => res.destroy());
  });
  const origin = await listen(server);
  return { url: `${origin}/sse`, close: closer(server) };
}

/** The three SSE tool servers, in this thread. */
export async function hostToolServers(): Promise<{ urls: ToolUrls; close(): Promise<void> }> {
  const started: BenchServer[] = [];
  try {
    const reference = await startToolServer({ host: '127.0.0.1', port: 0 });
    started.push(reference);
    const raw = await startRawRpcServer();
    started.push(raw);
    const sdk = await startSdkRpcServer();
    started.push(sdk);
    const streamable = await hostStreamableToolServers();
    started.push({ url: '', close: streamable.close });
    return {
      urls: { reference: reference.url, raw: raw.url, sdk: sdk.url, streamable: streamable.urls },
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (e) {
    await Promise.allSettled(started.map((s) => s.close()));
    throw e;
  }
}
