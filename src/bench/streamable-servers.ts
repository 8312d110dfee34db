import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { STREAMABLE_HTTP_HEADERS } from '../protocol/mcp/index.js';
import { startStreamableToolServer } from '../servers/tools/index.js';
import { echoReply } from './echo-answer.js';
import type { BenchServer } from './raw-server.js';

/** The endpoint URLs (`.../mcp`) of the Streamable HTTP tool servers a run compares. */
export interface StreamableToolUrls {
  /** The reference tool server over Streamable HTTP, event-stream answers (its default, the SDK's too). */
  reference: string;
  /** The same answering JSON bodies. */
  referenceJson: string;
  /** The MCP SDK's StreamableHTTPServerTransport + McpServer, one per session, the same echo tool. */
  sdk: string;
  /** The same with enableJsonResponse. */
  sdkJson: string;
  /** Raw node:http: a POST's JSON-RPC request answered with a JSON echo, a fixed session id, nothing else. */
  raw: string;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, resolve);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  req.setEncoding('utf8');
  for await (const chunk of req) body += chunk;
  return body;
}

/** The baseline: every POST parsed and answered (JSON, or 202 for a notification); no sessions kept. */
export async function startRawStreamableServer(): Promise<BenchServer> {
  const session = randomUUID();
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      req.resume();
      res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    readBody(req)
      .then(
        (body) => {
          const reply = echoReply(JSON.parse(body));
          if (reply === undefined) {
            res.writeHead(202).end();
            return;
          }
          res.writeHead(200, {
            'content-type': 'application/json',
            [STREAMABLE_HTTP_HEADERS.sessionId]: session,
          });
          res.end(reply);
        },
        () => res.destroy(),
      )
      .catch(() => res.destroy());
  });
  const url = await listen(server);
  return { url, close: closer(server) };
}

/** The MCP SDK's Streamable HTTP server, routed by session id as its simpleStreamableHttp example does. */
export async function startSdkStreamableServer(json: boolean): Promise<BenchServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer((req, res) => {
    const route = async () => {
      const sessionId = req.headers[STREAMABLE_HTTP_HEADERS.sessionId];
      const body = req.method === 'POST' ? (JSON.parse(await readBody(req)) as unknown) : undefined;
      const known = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (known !== undefined) return known.handleRequest(req, res, body);
      if (sessionId === undefined && isInitializeRequest(body)) {
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: json,
          onsessioninitialized: (id) => {
            transports.set(id, transport);
          },
        });
        transport.onclose = () => {
          if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
        };
        const mcp = new McpServer({ name: 'sdk-echo', version: '0' });
        mcp.registerTool(
          'echo',
          {
            description: 'Return the given text unchanged, as one text item.',
            inputSchema: { text: z.string() },
          },
          ({ text }) => ({ content: [{ type: 'text', text }] }),
        );
        await mcp.connect(transport);
        return transport.handleRequest(req, res, body);
      }
      res.writeHead(sessionId === undefined ? 400 : 404).end();
    };
    route().catch(() => res.destroy());
  });
  const url = await listen(server);
  return {
    url,
    close: async () => {
      await Promise.allSettled([...transports.values()].map((t) => t.close()));
      await closer(server)();
    },
  };
}

/** The Streamable HTTP tool servers, in this thread (the bench's server worker). */
export async function hostStreamableToolServers(): Promise<{
  urls: StreamableToolUrls;
  close(): Promise<void>;
}> {
  const started: BenchServer[] = [];
  try {
    const reference = await startStreamableToolServer({ host: '127.0.0.1', port: 0 });
    started.push(reference);
    const referenceJson = await startStreamableToolServer({ host: '127.0.0.1', port: 0, answer: 'json' });
    started.push(referenceJson);
    const sdk = await startSdkStreamableServer(false);
    started.push(sdk);
    const sdkJson = await startSdkStreamableServer(true);
    started.push(sdkJson);
    const raw = await startRawStreamableServer();
    started.push(raw);
    return {
      urls: {
        reference: reference.url,
        referenceJson: referenceJson.url,
        sdk: sdk.url,
        sdkJson: sdkJson.url,
        raw: raw.url,
      },
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (e) {
    await Promise.allSettled(started.map((s) => s.close()));
    throw e;
  }
}
