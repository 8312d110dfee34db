import { Agent, request as httpRequest } from 'node:http';
import { request as rpcRequest } from '../protocol/jsonrpc/index.js';
import {
  METHODS,
  mediaTypeOf,
  STREAMABLE_HTTP_CONTENT_TYPES,
  STREAMABLE_HTTP_HEADERS,
} from '../protocol/mcp/index.js';
import { createFrameDecoder } from '../protocol/sse/index.js';
import { RpcBenchError, type RpcSession, settleReply } from './rpc-session.js';

/** POSTs of every session share keep-alive sockets, as a client library's pool would. */
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const ACCEPT = `${STREAMABLE_HTTP_CONTENT_TYPES.json}, ${STREAMABLE_HTTP_CONTENT_TYPES.eventStream}`;

type Pending = Parameters<typeof settleReply>[0];

/**
 * A Streamable HTTP session for the bench: every message one POST (the session id the
 * initialize answer issued on each later one); an answer is a JSON body or an event stream,
 * read to its end. Deliberately cheap, as the SSE driver: the same cost for every server.
 */
export function openStreamableSession(endpoint: string): RpcSession {
  const url = new URL(endpoint);
  const pending: Pending = new Map();
  let session: string | undefined;
  let nextId = 1;

  const post = (body: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {
        accept: ACCEPT,
        'content-type': STREAMABLE_HTTP_CONTENT_TYPES.json,
        'content-length': Buffer.byteLength(body),
      };
      if (session !== undefined) headers[STREAMABLE_HTTP_HEADERS.sessionId] = session;
      const req = httpRequest(url, { method: 'POST', agent, headers });
      req.on('error', reject);
      req.on('response', (res) => {
        const issued = res.headers[STREAMABLE_HTTP_HEADERS.sessionId];
        if (session === undefined && typeof issued === 'string') session = issued;
        const status = res.statusCode ?? 0;
        if (status === 202) {
          res.resume();
          res.on('end', resolve);
          return;
        }
        if (status !== 200) {
          res.resume();
          reject(new RpcBenchError(`POST ${endpoint} answered HTTP ${status}`));
          return;
        }
        const settle = (data: string) => {
          try {
            settleReply(pending, JSON.parse(data), endpoint);
          } catch (e) {
            reject(e as Error);
          }
        };
        if (mediaTypeOf(res.headers['content-type']) === STREAMABLE_HTTP_CONTENT_TYPES.eventStream) {
          const decoder = createFrameDecoder({
            onFrame: (frame) => {
              if ((frame.event ?? 'message') === 'message' && frame.data !== '') settle(frame.data);
            },
          });
          res.on('data', (chunk: Buffer) => decoder.feed(chunk));
          res.on('end', resolve);
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          settle(text);
          resolve();
        });
      });
      req.end(body);
    });

  return {
    call: (method, params) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        post(JSON.stringify(rpcRequest(id, method, params))).catch((e: Error) => {
          pending.delete(id);
          reject(e);
        });
      }),
    notify: (method, params) =>
      post(JSON.stringify(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method })),
    close: () => {
      if (session === undefined) return;
      const req = httpRequest(url, {
        method: 'DELETE',
        agent,
        headers: { [STREAMABLE_HTTP_HEADERS.sessionId]: session },
      });
      req.on('error', () => {});
      req.on('response', (res) => res.resume());
      req.end();
    },
  };
}

/** `initialize` at 2025-03-26 (the first revision with this transport), then `notifications/initialized`. */
export async function initializeStreamable(session: RpcSession): Promise<void> {
  await session.call(METHODS.initialize, {
    protocolVersion: '2025-03-26',
    capabilities: {},
    clientInfo: { name: 'wirecheck-bench', version: '0' },
  });
  await session.notify(METHODS.initialized);
}
