import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { cutBytes, type ReadCuts } from './read-cuts.js';

export interface ReadSplittingRelay {
  /** `http://127.0.0.1:PORT`: give this to the client instead of the mock's URL. */
  readonly url: string;
  close(): Promise<void>;
}

export interface RelayOptions {
  /** Pause after each cut, so the client reads the piece before the next arrives (default 1 ms). */
  readonly pauseMs?: number;
  /** Most cuts per connection; later bytes pass through uncut (default 300: bounds a case's time). */
  readonly maxCuts?: number;
}

/**
 * A TCP relay in front of the mock that delivers the response in pieces cut where `cuts`
 * says, with a pause after each piece. The mock cuts its writes by its fault plan, but
 * writes made in one tick reach the client as one read; this relay makes the cuts reach
 * the client as separate reads, which is what a decoder that mishandles a UTF-8
 * character or a CRLF split across reads trips on. Requests pass through unchanged.
 */
export async function startReadSplittingRelay(
  upstreamUrl: string,
  cuts: ReadCuts,
  options: RelayOptions = {},
): Promise<ReadSplittingRelay> {
  const upstream = new URL(upstreamUrl);
  const pauseMs = options.pauseMs ?? 1;
  const maxCuts = options.maxCuts ?? 300;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const origin = connect(Number(upstream.port), upstream.hostname);
    sockets.add(client);
    sockets.add(origin);
    let cutsLeft = maxCuts;
    let forwarding = Promise.resolve();
    const closeBoth = () => {
      client.destroy();
      origin.destroy();
    };
    client.on('error', closeBoth);
    origin.on('error', () => {
      forwarding = forwarding.then(closeBoth);
    });
    client.on('close', () => {
      sockets.delete(client);
      origin.destroy();
    });
    origin.on('close', () => {
      sockets.delete(origin);
      // Whatever the origin sent is delivered first; then the client sees the same end.
      forwarding = forwarding.then(() => {
        client.end();
      });
    });
    client.pipe(origin);
    origin.on('data', (data: Buffer) => {
      origin.pause();
      forwarding = forwarding.then(async () => {
        const at = cutsLeft > 0 ? cuts(data).slice(0, cutsLeft) : [];
        cutsLeft -= at.length;
        for (const piece of cutBytes(data, at)) {
          if (client.destroyed) return;
          client.write(piece);
          if (at.length > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        }
        origin.resume();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
