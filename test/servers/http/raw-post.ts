import { subscribe } from 'node:diagnostics_channel';
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { vi } from 'vitest';

/** What a raw connection got: the status of the first answer (0 for none) and when it closed. */
export interface RawOutcome {
  readonly status: number;
  readonly text: string;
  /** Ms from the connection's start to its close. */
  readonly closedAfterMs: number;
}

export interface RawPost {
  readonly socket: Socket;
  /** Resolves once the server answered (a status line arrived) or closed the connection. */
  readonly answered: Promise<RawOutcome>;
  /** Resolves once the connection closed. */
  readonly closed: Promise<RawOutcome>;
}

/**
 * Open a connection to `url`'s host and send `POST path` with `headers` (raw lines) and then
 * `body`, nothing more: a client whose body stalls, or that holds a body it declared.
 */
export function rawPost(url: string, path: string, headers: readonly string[], body = ''): RawPost {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.setNoDelay(true);
  socket.on('error', () => {});
  const t0 = performance.now();
  let text = '';
  const outcome = (): RawOutcome => ({
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
    text,
    closedAfterMs: performance.now() - t0,
  });
  const closed = new Promise<RawOutcome>((resolve) => socket.once('close', () => resolve(outcome())));
  const answered = new Promise<RawOutcome>((resolve) => {
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (/\r\n\r\n/.test(text)) resolve(outcome());
    });
    socket.once('close', () => resolve(outcome()));
  });
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`,
  );
  return { socket, answered, closed };
}

/** `p`, or a rejection naming `what` after `ms`. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests whose headers each port's http server in this process has parsed, since the first watch. */
const startedByPort = new Map<number, number>();
let subscribed = false;

export interface RequestWatch {
  /** Resolves once `n` requests arrived since the watch began; rejects after `ms` saying how many did. */
  until(n: number, ms?: number): Promise<void>;
}

/**
 * Watch the requests reaching the in-process http server listening on `url`'s port. A fixed
 * sleep after sending is not enough on a loaded machine: the server may not have parsed the
 * requests yet. Node publishes each request on this channel as it parses its headers, just
 * before the server's 'request' event, so it reaches servers the test cannot otherwise see.
 */
export function watchRequests(url: string): RequestWatch {
  if (!subscribed) {
    subscribed = true;
    subscribe('http.server.request.start', (message) => {
      const { server } = message as { server: Server };
      const port = (server.address() as AddressInfo | null)?.port;
      if (port !== undefined) startedByPort.set(port, (startedByPort.get(port) ?? 0) + 1);
    });
  }
  const port = Number(new URL(url).port);
  const since = startedByPort.get(port) ?? 0;
  const arrived = () => (startedByPort.get(port) ?? 0) - since;
  return {
    async until(n, ms = 5_000) {
      await vi.waitFor(
        () => {
          if (arrived() < n)
            throw new Error(
              `expected ${n} requests at the server on port ${port} within ${ms} ms, ${arrived()} arrived`,
            );
        },
        { timeout: ms, interval: 10 },
      );
    },
  };
}

/**
 * Retry `attempt` every 10 ms until it passes or `ms` elapse (then its last error): for a
 * server's state that changes on events the client cannot see, e.g. the closes of sockets it
 * destroyed having been processed.
 */
export function eventually<T>(attempt: () => Promise<T>, ms = 5_000): Promise<T> {
  return vi.waitFor(attempt, { timeout: ms, interval: 10 });
}
