import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening bench server. */
export interface BenchServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  close(): Promise<void>;
}

/** Resolves on 'drain', or when the response closed (the client went away). */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** What a route writes: the same chunks every time, or chunks made afresh per request. */
export type RawRoute = readonly (string | Uint8Array)[] | (() => Iterable<string | Uint8Array>);

async function writeAll(res: ServerResponse, chunks: Iterable<string | Uint8Array>): Promise<void> {
  for (const chunk of chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await writable(res);
  }
  res.end();
}

/**
 * The baseline: a plain `node:http` server that answers `POST <prefix>/v1/messages` with
 * an SSE stream written as the given chunks, one `write()` each, honouring backpressure,
 * and does nothing else (no parsing, no validation, no bookkeeping). `routes` maps a path
 * prefix (`/text-64`) to its chunks, so `${url}/text-64` serves as a client's base URL. A
 * route given as a function makes its chunks per request (then it keeps nothing between
 * requests: the baseline of the memory rows).
 */
export async function startRawSseServer(routes: Readonly<Record<string, RawRoute>>): Promise<BenchServer> {
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    const prefix = path.endsWith('/v1/messages') ? path.slice(0, -'/v1/messages'.length) : undefined;
    const chunks = prefix === undefined ? undefined : routes[prefix];
    if (req.method !== 'POST' || chunks === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no bench stream at ${req.method} ${path}`);
      return;
    }
    req.resume();
    req.once('end', () => {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
      });
      void writeAll(res, typeof chunks === 'function' ? chunks() : chunks);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
