import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { encodeComment, encodeFrame } from '../../../src/protocol/sse/index.js';

/** How the in-test SSE tool server misbehaves (or not). */
export interface SseServerOptions {
  /** The `endpoint` event's data: a path (default), an absolute URL, or no event at all. */
  endpoint?: 'path' | 'absolute' | 'none' | ((sessionId: string, origin: string) => string);
  /** Status of every POST (default 202). */
  postStatus?: number;
  /** Write the reply on the stream before answering the POST (the MCP SDK can). */
  replyBeforeAck?: boolean;
  /** Frames written on the stream before each reply: comments, unknown events, unknown notifications. */
  noiseBeforeReply?: boolean;
  /** Send a `ping` request to the client before answering this method. */
  pingBefore?: string;
  /** End the stream instead of answering this method. */
  closeStreamOn?: string;
  /** Write this raw text on the stream instead of answering this method. */
  rawInsteadOf?: { method: string; text: string };
  /** Answer nothing to this method. */
  silentOn?: string;
}

export interface SseServer {
  readonly url: string;
  readonly origin: string;
  /** Every JSON body POSTed, in arrival order. */
  readonly posts: unknown[];
  readonly getCount: () => number;
  /** Streams still open on the server side. */
  readonly openStreams: () => number;
  close(): Promise<void>;
}

const TOOLS = [
  {
    name: 'echo',
    description: 'echo the text back',
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'what to echo' } } },
  },
  { name: 'fail', description: 'a tool that fails', inputSchema: { type: 'object', properties: {} } },
];

type Rpc = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown> };

function answer(message: Rpc): Record<string, unknown> | undefined {
  const id = message.id;
  switch (message.method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: 'in-test', version: '1.0.0' },
        },
      };
    case 'tools/list':
      return { jsonrpc: '2.0', id, result: { tools: TOOLS } };
    case 'tools/call': {
      const name = message.params?.name;
      const args = (message.params?.arguments ?? {}) as { text?: string };
      if (name === 'echo') {
        return {
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: args.text ?? '(nothing)' }] },
        };
      }
      if (name === 'fail') {
        return {
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: 'it failed' }], isError: true },
        };
      }
      return { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${String(name)}` } };
    }
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} };
    default:
      return id === undefined
        ? undefined
        : { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
  }
}

/** A small MCP 2024-11-05 SSE server on 127.0.0.1:0 (fastify), scriptable for faults. */
export async function startSseServer(options: SseServerOptions = {}): Promise<SseServer> {
  const app: FastifyInstance = Fastify();
  const streams = new Map<string, ServerResponse>();
  const posts: unknown[] = [];
  let gets = 0;
  let nextSession = 1;
  let origin = '';

  app.get('/sse', (_request, reply) => {
    gets++;
    const session = `s${nextSession++}`;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    streams.set(session, res);
    res.on('close', () => streams.delete(session));
    const endpoint = options.endpoint ?? 'path';
    if (endpoint === 'none') {
      res.write(encodeComment('no endpoint here'));
      return;
    }
    const data =
      endpoint === 'path'
        ? `/messages?sessionId=${session}`
        : endpoint === 'absolute'
          ? `${origin}/messages?sessionId=${session}`
          : endpoint(session, origin);
    res.write(encodeFrame('endpoint', data));
  });

  app.post('/messages', async (request, reply) => {
    const session = (request.query as { sessionId?: string }).sessionId ?? '';
    const res = streams.get(session);
    posts.push(request.body);
    const status = options.postStatus ?? 202;
    if (res === undefined) return reply.code(400).send({ error: 'no stream for this session' });
    if (status !== 200 && status !== 202) return reply.code(status).send({ error: `status ${status}` });
    const message = request.body as Rpc;
    const respond = async () => {
      const method = message.method ?? '';
      if (method === options.silentOn) return;
      if (method === options.closeStreamOn) {
        res.end();
        return;
      }
      if (method === options.rawInsteadOf?.method) {
        res.write(options.rawInsteadOf.text);
        return;
      }
      if (options.noiseBeforeReply && message.id !== undefined) {
        res.write(encodeComment('keep-alive'));
        res.write(encodeFrame('surprise', '{"what":"an event of another name"}'));
        res.write(
          encodeFrame('message', '{"jsonrpc":"2.0","method":"notifications/unheard-of","params":{}}'),
        );
        res.write(encodeFrame('message', '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'));
      }
      if (method === options.pingBefore) {
        res.write(encodeFrame('message', '{"jsonrpc":"2.0","id":"srv-1","method":"ping"}'));
        res.write(encodeFrame('message', '{"jsonrpc":"2.0","id":"srv-2","method":"sampling/createMessage"}'));
      }
      const out = answer(message);
      if (out !== undefined) res.write(encodeFrame('message', JSON.stringify(out)));
    };
    if (options.replyBeforeAck) {
      await respond();
      // Give the client time to read the reply before it sees the 202.
      await new Promise((r) => setTimeout(r, 30));
      return reply.code(status).send('Accepted');
    }
    setTimeout(() => void respond(), 5);
    return reply.code(status).send('Accepted');
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  origin = `http://127.0.0.1:${address.port}`;
  return {
    url: `${origin}/sse`,
    origin,
    posts,
    getCount: () => gets,
    openStreams: () => streams.size,
    close: async () => {
      for (const res of streams.values()) res.destroy();
      await app.close();
    },
  };
}
