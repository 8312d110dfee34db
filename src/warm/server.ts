import { chmod, lstat, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import {
  frameHeader,
  MAX_STDIN_FRAME_BYTES,
  RelayFrameError,
  RelayFrameReader,
  serverFrame,
} from './frames.js';

/** One case as the relay brought it: what a target command gets, without a process of its own. */
export interface WarmCase {
  /** The environment of the relay's process: what the suite set for this case (WIRECHECK_BASE_URL...). */
  readonly env: Readonly<Record<string, string>>;
  /** The relay's stdin, as it arrives; ends when the relay's stdin ends. */
  readonly stdin: Readable;
  /** Not copied, as a stream's write does not copy: bytes changed before they go out go out changed. */
  writeStdout(bytes: Uint8Array | string): void;
  writeStderr(bytes: Uint8Array | string): void;
  /** Aborted when the relay goes away first (the suite killed it, or its budget ran out). */
  readonly signal: AbortSignal;
}

/** Runs one case; resolves to the relay's exit status (0-255). */
export type WarmHandler = (warmCase: WarmCase) => Promise<number>;

export interface WarmServerOptions {
  /**
   * Path of the Unix socket to listen on. A socket left there by a server that is gone is
   * replaced; any other file, or a socket a server still answers on, is refused.
   */
  readonly socket: string;
  readonly handler: WarmHandler;
  /** Called with one line about a case that went wrong (a handler that threw, bytes that were not frames). */
  readonly log?: (line: string) => void;
}

export interface WarmServer {
  readonly socket: string;
  /** Stops listening, aborts the cases in progress and removes the socket file. */
  close(): Promise<void>;
}

/** Exit status of a case whose handler threw (EX_SOFTWARE). */
export const HANDLER_FAILED_STATUS = 70;
/** stdin bytes queued for a handler that does not read them before the relay is paused. */
const STDIN_HIGH_WATER_BYTES = 1024 * 1024;
/**
 * How long the relay stays paused while its handler reads no stdin. A paused socket reads
 * nothing, so it would not see its relay go away (no abort, the case's processes kept) nor
 * let a relay blocked on writing its stdin read its answer: past this, stdin is read on and
 * queued, up to STDIN_BACKLOG_BYTES.
 */
const STDIN_PAUSE_MS = 250;
/** stdin queued for a handler that reads none of it: past this the case ends, refused. */
export const STDIN_BACKLOG_BYTES = 16 * 1024 * 1024;

/**
 * Listens on a Unix socket (mode 0600: only this user's relays) for warm relays
 * (bin/warm-relay.pl), one case per connection, and runs `handler` for each: the real work of a
 * target command stays loaded between cases, and each case's process is the relay, which
 * starts in milliseconds (docs/warm-targets.md).
 */
export async function startWarmServer(options: WarmServerOptions): Promise<WarmServer> {
  const log = options.log ?? (() => {});
  const cases = new Map<AbortController, Socket>();
  const server = createServer((socket) => serveCase(socket, options.handler, log, cases));
  await clearStaleSocket(options.socket);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(options.socket, 0o600);
  return {
    socket: options.socket,
    async close() {
      // A case cut short gets no exit status: its relay says the server went away.
      for (const [controller, socket] of cases) {
        socket.destroy();
        controller.abort();
      }
      await closeServer(server);
      await rm(options.socket, { force: true });
    },
  };
}

/** Removes a socket file no server answers on; leaves (and refuses) anything else. */
async function clearStaleSocket(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return;
  if (!info.isSocket()) throw new Error(`${path} exists and is not a socket: it is not replaced`);
  const answered = await new Promise<boolean>((resolve) => {
    const probe = connect(path, () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
  if (answered) throw new Error(`a server already listens on ${path}`);
  await rm(path, { force: true });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function serveCase(
  socket: Socket,
  handler: WarmHandler,
  log: (line: string) => void,
  cases: Map<AbortController, Socket>,
): void {
  const controller = new AbortController();
  cases.set(controller, socket);
  const reader = new RelayFrameReader();
  const stdin = new PassThrough({ highWaterMark: STDIN_HIGH_WATER_BYTES });
  let started = false;
  let finished = false;
  const send = (type: 'O' | 'R', bytes: Uint8Array | string) => {
    if (finished || socket.destroyed) return;
    // A view of the caller's bytes, not a copy: each piece goes out behind its own header.
    const all =
      typeof bytes === 'string'
        ? Buffer.from(bytes)
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // The relay keeps a whole frame in memory before it writes it: frames of at most 64 KiB.
    for (let at = 0; at < all.length; at += MAX_STDIN_FRAME_BYTES) {
      const piece = all.subarray(at, at + MAX_STDIN_FRAME_BYTES);
      socket.write(frameHeader(type, piece.length));
      socket.write(piece);
    }
  };
  let pauseEnds: ReturnType<typeof setTimeout> | undefined;
  /** Set from a pause until the handler reads its stdin down: the relay is paused once at most meanwhile. */
  let awaitingDrain = false;
  const resume = () => {
    clearTimeout(pauseEnds);
    socket.resume();
  };
  const end = () => {
    cases.delete(controller);
    if (!controller.signal.aborted) controller.abort();
    stdin.destroy();
    // The relay's stdin still coming is read and dropped, and its going away is seen.
    resume();
  };
  const run = async (env: Readonly<Record<string, string>>) => {
    let status: number;
    try {
      status = await handler({
        env,
        stdin,
        writeStdout: (bytes) => send('O', bytes),
        writeStderr: (bytes) => send('R', bytes),
        signal: controller.signal,
      });
      if (!Number.isInteger(status) || status < 0 || status > 255) {
        throw new Error(`the handler resolved to ${String(status)}, not an exit status 0-255`);
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (!controller.signal.aborted) log(`a case failed: ${reason}`);
      send('R', `warm server: ${reason}\n`);
      status = HANDLER_FAILED_STATUS;
    }
    if (!socket.destroyed) socket.end(serverFrame('X', status));
    finished = true;
    end();
  };
  socket.on('data', (chunk: Buffer) => {
    let frames: ReturnType<RelayFrameReader['push']>;
    try {
      frames = reader.push(chunk);
    } catch (error) {
      log(error instanceof RelayFrameError ? `not a warm relay: ${error.message}` : String(error));
      socket.destroy();
      return;
    }
    for (const frame of frames) {
      if (frame.type === 'env') {
        started = true;
        void run(frame.env);
      } else if (frame.type === 'stdin') {
        if (finished || stdin.destroyed) continue;
        if (stdin.writableLength + frame.bytes.length > STDIN_BACKLOG_BYTES) {
          log(
            `a case's handler left more than ${STDIN_BACKLOG_BYTES} bytes of stdin unread: the case is ended`,
          );
          socket.destroy();
          return;
        }
        if (!stdin.write(frame.bytes) && !awaitingDrain) {
          awaitingDrain = true;
          socket.pause();
          stdin.once('drain', () => {
            awaitingDrain = false;
            resume();
          });
          pauseEnds = setTimeout(resume, STDIN_PAUSE_MS);
        }
      } else if (!stdin.destroyed) stdin.end();
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    clearTimeout(pauseEnds);
    if (!started) cases.delete(controller);
    else if (!finished) end();
  });
}
