import { connect, type Socket } from 'node:net';

/** An SSE stream opened over a raw socket that reads up to the `endpoint` event and then stops reading. */
export interface StalledStream {
  /** The data of the endpoint event (the POST path with the session id). */
  readonly endpoint: string;
  readonly socket: Socket;
  /** Resolves when the server closed or reset the connection. */
  readonly closed: Promise<void>;
  destroy(): void;
}

/** GET `path` on host:port, wait for the endpoint event, then pause the socket: nothing more is read. */
export function openStalledStream(port: number, path = '/sse', timeoutMs = 5_000): Promise<StalledStream> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    let done = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no endpoint event within ${timeoutMs} ms: ${JSON.stringify(text.slice(0, 300))}`));
    }, timeoutMs);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      if (done) return;
      text += chunk.toString('latin1');
      const m = /event: endpoint\r?\ndata: ([^\r\n]+)\r?\n\r?\n/.exec(text);
      if (m === null) return;
      done = true;
      clearTimeout(timer);
      // From here on the client reads nothing: the kernel buffers fill, then the server's.
      socket.pause();
      resolve({ endpoint: m[1]!, socket, closed, destroy: () => socket.destroy() });
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
}
