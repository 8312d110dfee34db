import { Agent, type ClientRequest, request as httpRequest } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { createLineDecoder, encodeLine, request as rpcRequest } from '../protocol/jsonrpc/index.js';
import { METHODS, PROTOCOL_VERSION, resolveEndpoint, TOOL_SSE_EVENTS } from '../protocol/mcp/index.js';
import { createFrameDecoder } from '../protocol/sse/index.js';

/** A JSON-RPC peer the bench calls: one SSE session or one stdio child. */
export interface RpcSession {
  /** Send a request and resolve with its result (reject on a JSON-RPC error). */
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  /** Send a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  close(): void;
}

/** A reply the bench did not expect (an error, a wrong id, a lost session). */
export class RpcBenchError extends Error {
  override name = 'RpcBenchError';
}

type Pending = Map<number | string, { resolve(result: unknown): void; reject(e: Error): void }>;

/**
 * Settle the pending call a reply answers; anything else (a server request, a
 * notification) is ignored. Deliberately cheap (no schema): the driver's own cost is paid
 * by every server compared and narrows their differences.
 */
export function settleReply(pending: Pending, value: unknown, where: string): void {
  const m = value as { id?: number | string; result?: unknown; error?: unknown; method?: unknown };
  if (typeof m !== 'object' || m === null || 'method' in m || m.id === undefined) return;
  const waiter = pending.get(m.id);
  if (!waiter) {
    throw new RpcBenchError(`${where}: a reply for id ${JSON.stringify(m.id)}, which no pending call has`);
  }
  pending.delete(m.id);
  if ('result' in m) waiter.resolve(m.result);
  else
    waiter.reject(
      new RpcBenchError(`${where}: expected a result, got ${JSON.stringify(value).slice(0, 300)}`),
    );
}

const STREAM_TIMEOUT_MS = 30_000;
/** POSTs of every session share keep-alive sockets, as a client library's pool would. */
const postAgent = new Agent({ keepAlive: true, maxSockets: 256 });

function post(url: URL, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      agent: postAgent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      // 202 is the spec's; a probe accepts 200 too.
      if (res.statusCode === 202 || res.statusCode === 200) res.on('end', resolve);
      else
        reject(
          new RpcBenchError(
            `POST ${url.pathname}${url.search} answered HTTP ${res.statusCode}, expected 202`,
          ),
        );
    });
    req.end(body);
  });
}

/**
 * Open an SSE session at `streamUrl` (GET, wait for the `endpoint` event). Calls are
 * POSTed to the announced endpoint and answered on the stream; a call is registered
 * before its POST leaves, since the reply may beat the 202.
 */
export function openSseSession(streamUrl: string): Promise<RpcSession> {
  return new Promise((resolve, reject) => {
    const pending: Pending = new Map();
    let endpoint: URL | undefined;
    let nextId = 1;
    let get: ClientRequest | undefined;
    let closing = false;
    const fail = (e: Error) => {
      for (const w of pending.values()) w.reject(e);
      pending.clear();
      reject(e);
    };
    const timer = setTimeout(
      () => fail(new RpcBenchError(`${streamUrl}: no endpoint event within ${STREAM_TIMEOUT_MS} ms`)),
      STREAM_TIMEOUT_MS,
    );
    const session: RpcSession = {
      call: (method, params) =>
        new Promise((res, rej) => {
          const id = nextId++;
          pending.set(id, { resolve: res, reject: rej });
          post(endpoint!, JSON.stringify(rpcRequest(id, method, params))).catch((e: Error) => {
            pending.delete(id);
            rej(e);
          });
        }),
      notify: (method, params) =>
        post(
          endpoint!,
          JSON.stringify(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method }),
        ),
      close: () => {
        closing = true;
        get?.destroy();
      },
    };
    const decoder = createFrameDecoder({
      onFrame: (frame) => {
        if (frame.event === TOOL_SSE_EVENTS.endpoint && endpoint === undefined) {
          endpoint = resolveEndpoint(frame.data, streamUrl);
          clearTimeout(timer);
          resolve(session);
        } else if (frame.event === TOOL_SSE_EVENTS.message) {
          try {
            settleReply(pending, JSON.parse(frame.data), streamUrl);
          } catch (e) {
            fail(e as Error);
          }
        }
      },
    });
    // A stream holds its socket for the session's life: a connection of its own, outside the pool.
    get = httpRequest(streamUrl, { agent: false, headers: { accept: 'text/event-stream' } });
    get.on('error', (e) => {
      clearTimeout(timer);
      if (!closing) fail(e);
    });
    get.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        clearTimeout(timer);
        fail(new RpcBenchError(`GET ${streamUrl} answered HTTP ${res.statusCode}, expected 200`));
        return;
      }
      res.on('data', (chunk: Buffer) => decoder.feed(chunk));
      res.on('error', () => {});
      res.on('end', () => {
        if (!closing) fail(new RpcBenchError(`${streamUrl}: the server ended the session's stream`));
      });
    });
    get.end();
  });
}

/** `initialize` then `notifications/initialized`, as every MCP client starts. */
export async function initialize(session: RpcSession): Promise<void> {
  await session.call(METHODS.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'wirecheck-bench', version: '0' },
  });
  await session.notify(METHODS.initialized);
}

/** Text that every echo call sends and must get back. */
export const ECHO_TEXT = 'bench echo: "quoted", ünïcode';

/** One tools/call of `echo`; its result must hold the text sent. */
export async function echoCall(session: RpcSession): Promise<void> {
  const result = (await session.call(METHODS.toolsCall, {
    name: 'echo',
    arguments: { text: ECHO_TEXT },
  })) as {
    content?: { type?: string; text?: string }[];
  };
  const text = result?.content?.[0]?.text;
  if (text !== ECHO_TEXT) {
    throw new RpcBenchError(
      `echo answered ${JSON.stringify(result).slice(0, 200)}, expected the text sent back`,
    );
  }
}

/** `calls` echo calls, `inFlight` at a time, over one session. */
export async function echoCalls(session: RpcSession, calls: number, inFlight: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      next++;
      await echoCall(session);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(inFlight, calls)) }, lane));
}

/**
 * A session with a stdio server already started: requests are written as lines to its
 * stdin, replies read as lines from its stdout.
 */
export function stdioSession(stdin: Writable, stdout: Readable, where: string): RpcSession {
  const pending: Pending = new Map();
  let nextId = 1;
  const fail = (e: Error) => {
    for (const w of pending.values()) w.reject(e);
    pending.clear();
  };
  const decoder = createLineDecoder({
    onLine: (line) => {
      if (!line.ok) {
        fail(new RpcBenchError(`${where}: a line on stdout that is not JSON: ${line.line.slice(0, 200)}`));
        return;
      }
      try {
        settleReply(pending, line.value, where);
      } catch (e) {
        fail(e as Error);
      }
    },
  });
  stdout.on('data', (chunk: Buffer) => decoder.feed(chunk));
  stdout.on('end', () => fail(new RpcBenchError(`${where}: stdout ended`)));
  stdout.resume();
  const send = (message: unknown) => {
    stdin.write(encodeLine(message));
  };
  return {
    call: (method, params) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        send(rpcRequest(id, method, params));
      }),
    notify: async (method, params) =>
      send(params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method }),
    close: () => stdin.end(),
  };
}
