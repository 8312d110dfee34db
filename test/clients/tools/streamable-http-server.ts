import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the scripted server received. */
export interface HttpExchange {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly status: number;
}

export interface ScriptedHttpServerOptions {
  /** How requests are answered (default json). */
  readonly answer?: 'json' | 'sse';
  /** The first request after initialize (not initialize) of the first session gets 404, once. */
  readonly expireFirstSession?: boolean;
  /** The first tools/call's answer stream: an event with only an id, then the stream ends. `noId`: no id at all. */
  readonly dropFirstCall?: 'with-id' | 'no-id';
  /** GET without Last-Event-ID: 405 (default), or an open stream on which a ping request is sent. */
  readonly getStream?: 405 | 'ping';
  /** Answer the first tools/call with this many bytes of JSON (bounds test). */
  readonly hugeAnswerBytes?: number;
  /** Status of every POST (default: as the protocol says). */
  readonly postStatus?: number;
}

export interface ScriptedHttpServer {
  readonly url: string;
  readonly exchanges: HttpExchange[];
  close(): Promise<void>;
}

interface Rpc {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  params?: { name?: string; arguments?: unknown };
  result?: unknown;
}

/**
 * A small Streamable HTTP tool server scripted by the test (node:http, 127.0.0.1, port 0):
 * the client transport's tests need a peer that misbehaves on purpose, one fault at a time.
 */
export async function startScriptedHttpServer(
  options: ScriptedHttpServerOptions = {},
): Promise<ScriptedHttpServer> {
  const exchanges: HttpExchange[] = [];
  let sessions = 0;
  let expired = false;
  let dropped = false;
  let huge = false;
  const heldForResume = new Map<string, string>();
  const open = new Set<ServerResponse>();

  const answerOf = (rpc: Rpc): unknown => {
    if (rpc.method === 'initialize') {
      return {
        jsonrpc: '2.0',
        id: rpc.id,
        result: {
          protocolVersion: '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: 's', version: '1' },
        },
      };
    }
    if (rpc.method === 'tools/call') {
      const text = JSON.stringify(rpc.params?.arguments ?? {});
      return { jsonrpc: '2.0', id: rpc.id, result: { content: [{ type: 'text', text }] } };
    }
    if (rpc.method === 'tools/list') return { jsonrpc: '2.0', id: rpc.id, result: { tools: [] } };
    return { jsonrpc: '2.0', id: rpc.id, result: {} };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const record = (status: number) =>
        exchanges.push({ method: req.method ?? '', headers: req.headers, body, status });
      if (req.method === 'DELETE') {
        record(200);
        res.writeHead(200).end();
        return;
      }
      if (req.method === 'GET') {
        const last = req.headers['last-event-id'];
        if (typeof last === 'string') {
          const held = heldForResume.get(last);
          record(held === undefined ? 404 : 200);
          if (held === undefined) {
            res.writeHead(404).end();
            return;
          }
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`id: ${last}-1\ndata: ${held}\n\n`);
          return;
        }
        if (options.getStream === 'ping') {
          record(200);
          open.add(res);
          res.on('close', () => open.delete(res));
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' })}\n\n`);
          return;
        }
        record(405);
        res.writeHead(405).end();
        return;
      }
      const rpc = JSON.parse(body) as Rpc;
      if (options.postStatus !== undefined) {
        record(options.postStatus);
        res.writeHead(options.postStatus, { 'content-type': 'application/json' }).end('{"error":"scripted"}');
        return;
      }
      const headers: Record<string, string> = {};
      if (rpc.method === 'initialize') headers['mcp-session-id'] = `session-${++sessions}`;
      else if (
        options.expireFirstSession &&
        !expired &&
        req.headers['mcp-session-id'] === 'session-1' &&
        rpc.id !== undefined &&
        rpc.method !== undefined
      ) {
        expired = true;
        record(404);
        res.writeHead(404).end('no such session');
        return;
      }
      if (rpc.method === undefined || rpc.id === undefined) {
        record(202);
        res.writeHead(202).end();
        return;
      }
      record(200);
      const answer = JSON.stringify(answerOf(rpc));
      if (rpc.method === 'tools/call' && options.hugeAnswerBytes !== undefined && !huge) {
        huge = true;
        res.writeHead(200, { ...headers, 'content-type': 'application/json' });
        res.end(
          `{"jsonrpc":"2.0","id":${rpc.id},"result":{"content":[{"type":"text","text":"${'x'.repeat(options.hugeAnswerBytes)}"}]}}`,
        );
        return;
      }
      if (rpc.method === 'tools/call' && options.dropFirstCall !== undefined && !dropped) {
        dropped = true;
        res.writeHead(200, { ...headers, 'content-type': 'text/event-stream' });
        if (options.dropFirstCall === 'with-id') {
          heldForResume.set('call-1', answer);
          res.end('id: call-1\ndata:\n\n');
        } else res.end(': nothing\n\n');
        return;
      }
      if (options.answer === 'sse') {
        res.writeHead(200, { ...headers, 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: ${answer}\n\n`);
        return;
      }
      res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    exchanges,
    close: async () => {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
