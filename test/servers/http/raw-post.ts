import { connect, type Socket } from 'node:net';

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
