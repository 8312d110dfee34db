import type { ClientRequest, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import {
  BODY_BUDGET_FACTOR,
  BodyBudget,
  BodyHold,
  declaredOverLimit,
  limitRequestTime,
  REQUEST_TIMEOUT_MS,
} from '../servers/http/body-budget.js';
import { listenHttp, originOf } from '../servers/http/listen.js';
import { nodeHttp } from '../transports/node-http.js';

const { createServer, Agent: HttpAgent, request: httpRequest } = nodeHttp;

// What every recording proxy does around its recording: listen, read a bounded request
// body, send upstream, count the work in flight, close. The messages proxy and the
// tool-session proxies (SSE, Streamable HTTP) differ only in what they record.

/** A proxy's listening side and the work it has in flight. */
export interface RelayServer {
  /** `http://HOST:PORT` as a client reaches it (a wildcard address is shown as 127.0.0.1). */
  readonly origin: string;
  /** Count `work` (an exchange, a file being written) until it settles: `settled` waits for it. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Resolves once every piece of work tracked so far (and any it started) has settled. */
  settled(): Promise<void>;
  /** Stop listening and cut every connection (what they were doing ends as cut); resolves once closed. */
  stop(): Promise<void>;
}

export interface RelayServerOptions {
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  /**
   * Ms a request may take to arrive whole, headers and body; past it Node answers 408 and
   * closes (default REQUEST_TIMEOUT_MS, 60 s). Internal: tests set it short.
   */
  readonly requestTimeoutMs?: number | undefined;
}

/**
 * Listen on `host:port` (default 127.0.0.1, a free port) with Nagle off on every connection.
 * The request bodies its requests read (readBoundedBody) share one budget: 4 x their limit.
 */
export async function startRelayServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  options: RelayServerOptions,
): Promise<RelayServer> {
  /** The GET each connection is answering, until its answer ends. */
  const subscriptions = new WeakMap<Socket, ServerResponse>();
  const bodies = new RelayBodies();
  const server: Server = createServer((req, res) => {
    relayBodies.set(req, bodies);
    if (req.method === 'GET' || req.method === 'HEAD') {
      subscriptions.set(req.socket, res);
      const done = () => {
        if (subscriptions.get(req.socket) === res) subscriptions.delete(req.socket);
      };
      res.once('finish', done).once('close', done);
    }
    handle(req, res);
  });
  // A client may send its request and then close its side (HTTP/1.1 allows it): without this
  // Node ends the connection at the FIN, the answer can no longer reach the client, and the
  // exchange is cut before the upstream is asked. With it, the answer goes out and then the
  // connection ends. A property of Node's http.Server (22, 24), neither a createServer
  // option nor in @types/node, read at each FIN (socketOnEnd in lib/_http_server.js).
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Node's default is 300 s: a request whose body stalls would hold its connection for as long.
  limitRequestTime(server, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  server.on('connection', (socket: Socket) => {
    socket.setNoDelay(true);
    // But a FIN during a GET's answer (an SSE stream, which never ends on its own) is how a
    // client leaves it: kept open, the stream and its recording would wait for ever (an idle
    // stream writes nothing that could fail). So it ends as it did without half-open.
    socket.on('end', () => {
      if (subscriptions.has(socket)) socket.destroy();
    });
  });
  const address = await listenHttp(server, { host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const pending = new Set<Promise<unknown>>();
  return {
    origin: originOf(address),
    track(work) {
      pending.add(work);
      void work.finally(() => pending.delete(work)).catch(() => {});
      return work;
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The bodies in flight of one relay server: one budget, 4 x the body limit its proxy reads with. */
class RelayBodies {
  private budget: BodyBudget | undefined;

  /** A proxy reads every body with the same limit: the budget follows the first. */
  budgetFor(limit: number): BodyBudget {
    this.budget ??= new BodyBudget(BODY_BUDGET_FACTOR * limit);
    return this.budget;
  }
}

/** The relay server each request came to. */
const relayBodies = new WeakMap<IncomingMessage, RelayBodies>();

/** An answer refusing a request: its status and JSON text. */
export interface Refusal {
  readonly status: number;
  readonly body: string;
}

/** How a request is refused when the bodies in flight would pass the budget, unless the proxy says otherwise. */
function serviceUnavailable(why: string): Refusal {
  return { status: 503, body: JSON.stringify({ error: `recording proxy busy: ${why}` }) };
}

/**
 * The body of a request, read whole up to `limit` bytes (what comes past it is read and
 * dropped). Past the limit the request is answered 413 with `tooLarge` (a JSON text) and
 * the result is undefined, as it is for a request that broke off; a body declared (by its
 * Content-Length) over the limit is answered so at once, before any of it is read. When the
 * bodies in flight on the relay server would pass their budget, the request is answered with
 * `overloaded(why)` (default 503 `{"error": ...}`) and the rest of its body is never read.
 */
export function readBoundedBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  tooLarge: string,
  overloaded: (why: string) => Refusal = serviceUnavailable,
): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const refuse = (refusal: Refusal) => {
      // The rest of the body is never read: the connection ends with the answer.
      res
        .writeHead(refusal.status, { 'content-type': 'application/json', connection: 'close' })
        .end(refusal.body);
      resolve(undefined);
    };
    if (declaredOverLimit(req.headers, limit) !== undefined) {
      refuse({ status: 413, body: tooLarge });
      return;
    }
    const budget = relayBodies.get(req)?.budgetFor(limit);
    const hold = budget === undefined ? undefined : BodyHold.open(budget, req.headers, limit);
    if (typeof hold === 'string') {
      refuse(overloaded(hold));
      return;
    }
    hold?.releaseWhenAnswered(res);
    const parts: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (b: Buffer) => {
      if (refused) return;
      const why = hold?.received(b.length);
      if (why !== undefined) {
        refused = true;
        parts.length = 0;
        req.pause();
        refuse(overloaded(why));
        return;
      }
      size += b.length;
      if (size <= limit) parts.push(b);
    });
    req.on('error', () => resolve(undefined));
    req.on('end', () => {
      if (refused) return;
      if (size <= limit) {
        resolve(Buffer.concat(parts));
        return;
      }
      res.writeHead(413, { 'content-type': 'application/json' }).end(tooLarge);
      resolve(undefined);
    });
  });
}

/** A request to the upstream: where, and what (headers as raw pairs, `host` set from `target`). */
export interface UpstreamRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: readonly string[];
}

/** The proxy's upstream (refused unless http: or https:) and its keep-alive pools, gone with `destroy`. */
export interface Upstream {
  readonly url: URL;
  send(target: URL, request: UpstreamRequest): ClientRequest;
  destroy(): void;
}

export function createUpstream(given: string): Upstream {
  const url = new URL(given);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`upstream must be an http: or https: URL, got ${given}`);
  }
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return {
    url,
    send(target, request) {
      const secure = target.protocol === 'https:';
      const out = (secure ? httpsRequest : httpRequest)({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: request.method,
        path: request.path,
        // With headers given as raw pairs Node adds no Host of its own.
        headers: ['host', target.host, ...request.headers],
        agent: secure ? agents.https : agents.http,
      });
      out.on('socket', (socket) => socket.setNoDelay(true));
      return out;
    },
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Bytes a recording may have waiting for the disk before its upstream is paused. */
export const DISK_QUEUE_LIMIT = 8 * 1024 * 1024;

/** Pauses a source (an upstream response) while what it feeds is behind; resumes it once nothing is. */
export interface Pacer {
  /** After a write the client did not take at once: paused until the client drains. */
  client(res: ServerResponse): void;
  /** After a write the client's side took as behind: paused until `caughtUp` settles. */
  output(caughtUp: Promise<unknown>): void;
  /** After a write to a recording's file: paused while more than 8 MiB wait for the disk. */
  disk(file: { readonly queuedBytes: number; drained(): Promise<void> } | undefined): void;
  /** After a write a recording's decoder did not take at once: paused until `drained` settles. */
  decoder(drained: () => Promise<void>): void;
}

export function createPacer(source: { pause(): unknown; resume(): unknown }): Pacer {
  const behind = new Set<'client' | 'disk' | 'decoder'>();
  const hold = (who: 'client' | 'disk' | 'decoder', caughtUp: Promise<unknown>) => {
    if (behind.size === 0) source.pause();
    behind.add(who);
    void caughtUp.then(() => {
      behind.delete(who);
      if (behind.size === 0) source.resume();
    });
  };
  return {
    client(res) {
      if (!behind.has('client')) hold('client', new Promise((r) => res.once('drain', r)));
    },
    output(caughtUp) {
      if (!behind.has('client'))
        hold(
          'client',
          caughtUp.catch(() => {}),
        );
    },
    disk(file) {
      if (file !== undefined && file.queuedBytes > DISK_QUEUE_LIMIT && !behind.has('disk'))
        hold('disk', file.drained());
    },
    decoder(drained) {
      if (!behind.has('decoder')) hold('decoder', drained());
    },
  };
}
