import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { shellQuote } from '../shell-quote.js';
import { ToolJournal } from './journal.js';
import { type ToolScenario, toolScenario } from './scenario.js';
import { runStdioMockToolServer, STDIO_ENDS, type StdioMockEnd, stdioSessionName } from './stdio.js';
import { STDIO_RELAY_SCRIPT } from './stdio-relay-script.js';

/** The longest Unix socket path Linux takes (sun_path is 108 bytes, NUL included). */
export const MAX_SOCKET_PATH = 107;
/** A relay that has not said which session it carries by then is dropped. */
const HELLO_TIMEOUT_MS = 5_000;
/** The relay reads 64 KiB at a time: a longer frame is not from it. */
const MAX_FRAME_BYTES = 64 * 1024;
/** Client bytes queued for the mock before the relay's socket is paused. */
const QUEUE_HIGH_BYTES = 1024 * 1024;
/**
 * Server processes one case's client may start (a session each: a client may list the tools
 * in one and call in another); a relay past them is turned away.
 */
export const MAX_RELAYED_SESSIONS = 8;

/** One stdio session whose mock runs here, reached by the client through `command`. */
export interface RelayedStdioSession {
  /**
   * The shell command for the client to start as its server; `exec`, so that the shell
   * becomes the relay and a client's signal reaches it (the shutdown-order check reads it).
   */
  readonly command: string;
  /** The relay's program and arguments, as `command` runs them. */
  readonly argv: readonly string[];
  /** The session's journal, as it grows: every server process the client started, each a session of its own. */
  readonly journal: ToolJournal;
  /** How the first server process's session ended; settles after stop() if no relay connected. */
  readonly ended: Promise<StdioMockEnd | 'never-connected'>;
  /** Settles once no relay of the case is connected (at once when none is). */
  idle(): Promise<void>;
  /** Ends the session (a relay that connects later is turned away). */
  stop(): void;
}

/** A Unix socket the stdio relays of a suite's cases connect to (STDIO_RELAY_SCRIPT). */
export interface StdioRelayHost {
  session(scenario: ToolScenario): RelayedStdioSession;
  close(): Promise<void>;
}

/** perl's absolute path on PATH, or undefined: the relay needs it. */
export function findPerl(path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir.startsWith('/')) continue;
    const file = join(dir, 'perl');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * Listens on `dir`/relay.sock (dir should be private, as mkdtemp makes it) for the relays of
 * stdio sessions, started with `perl` (findPerl()). Undefined when relays cannot be used
 * here: no perl, a socket path too long for Linux, or no socket could listen there.
 */
export async function startStdioRelayHost(
  dir: string,
  perl: string | undefined,
): Promise<StdioRelayHost | undefined> {
  const socketPath = join(dir, 'relay.sock');
  if (perl === undefined || Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) return undefined;
  const waiting = new Map<string, (socket: Socket, rest: Buffer) => void>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const timer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < 33) return;
      socket.off('data', onData);
      clearTimeout(timer);
      const token = head.subarray(1, 33).toString('latin1');
      const attach = head[0] === 0x48 ? waiting.get(token) : undefined;
      if (attach === undefined) {
        socket.destroy();
        return;
      }
      attach(socket, head.subarray(33));
    };
    socket.on('data', onData);
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(socketPath, () => resolve(true));
  });
  // A file system without sockets, a path taken: the mock runs as a process of its own instead.
  if (!listening) return undefined;

  const host: StdioRelayHost = {
    session(scenario) {
      const token = randomBytes(16).toString('hex');
      const journal = new ToolJournal();
      const stopper = new AbortController();
      let attached = 0;
      const live = new Set<Promise<StdioMockEnd>>();
      const ended = new Promise<StdioMockEnd | 'never-connected'>((resolve) => {
        stopper.signal.addEventListener('abort', () => {
          waiting.delete(token);
          if (attached === 0) resolve('never-connected');
        });
        // Each server process the client starts relays to a session of its own, the same scenario.
        waiting.set(token, (socket, rest) => {
          if (attached >= MAX_RELAYED_SESSIONS) {
            socket.destroy();
            return;
          }
          const served = serve(scenario, journal, socket, rest, stopper.signal, stdioSessionName(attached));
          if (attached === 0) resolve(served);
          attached++;
          live.add(served);
          void served.finally(() => live.delete(served));
        });
      });
      const argv = [perl, '-e', STDIO_RELAY_SCRIPT, socketPath, token];
      return {
        command: ['exec', ...argv].map(shellQuote).join(' '),
        argv,
        journal,
        ended,
        idle: async () => {
          while (live.size > 0) await Promise.allSettled([...live]);
        },
        stop: () => stopper.abort(),
      };
    },
    async close() {
      waiting.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
    },
  };
  // A perl that cannot run the relay would make every client look as if it never reached
  // its server: the host is used only once a relay of its own came through.
  if (await relayWorks(host, perl)) return host;
  await host.close();
  return undefined;
}

/** How long the relay's self-test may take (perl starts in milliseconds). */
const SELF_TEST_MS = 10_000;
/** How long after the self-test's relay exited its session must have ended. */
const SELF_TEST_GRACE_MS = 1_000;

/** Starts one relay with an empty stdin: it must connect, say its stdin ended, and exit 0. */
async function relayWorks(host: StdioRelayHost, perl: string): Promise<boolean> {
  const session = host.session(toolScenario({}));
  const [file, ...args] = session.argv;
  const child = spawn(file ?? perl, args, { stdio: 'ignore' });
  const timer = setTimeout(() => child.kill('SIGKILL'), SELF_TEST_MS);
  try {
    const code = await new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(null));
      child.on('exit', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) return false;
    // It exits once the host ended the session, so the end is known by now (a moment's grace).
    const end = await Promise.race([session.ended, delay(SELF_TEST_GRACE_MS, undefined, { ref: false })]);
    return end === 'eof';
  } finally {
    clearTimeout(timer);
    session.stop();
  }
}

/** Runs the mock on one relay's socket until its stdin ends, it is signalled or killed, or `stop`. */
async function serve(
  scenario: ToolScenario,
  journal: ToolJournal,
  socket: Socket,
  rest: Buffer,
  stop: AbortSignal,
  session: string,
): Promise<StdioMockEnd> {
  const vanished = new AbortController();
  const input = new FrameInput(socket, (frame) => {
    // On SIGTERM, the text the mock's own process journals (stdio-process.ts); a kill, which
    // that process cannot see, only the relay's watcher tells.
    const text =
      frame.kind === 'term'
        ? !frame.running
          ? STDIO_ENDS.termAfterExit
          : frame.afterStdinEnd
            ? STDIO_ENDS.termAfterStdinEnd
            : STDIO_ENDS.termWhileRunning
        : frame.kind === 'killed'
          ? frame.afterStdinEnd
            ? STDIO_ENDS.killedAfterStdinEnd
            : STDIO_ENDS.killedWhileRunning
          : undefined;
    if (text !== undefined) {
      journal.record({ session, transport: 'stdio', direction: 'received', kind: 'closed', text });
    }
    vanished.abort();
  });
  input.push(rest);
  try {
    const { end } = await runStdioMockToolServer(scenario, {
      session,
      input,
      journal,
      write: (text) => {
        // A client that does not read its server's stdout blocks the relay, which then reads
        // neither its stdin nor this socket: what waits here is the replies to what came before.
        if (socket.writable) socket.write(text);
      },
      // Stopped by the harness, the session journals no end of its own either.
      vanished: AbortSignal.any([vanished.signal, stop]),
    });
    return end;
  } finally {
    // The relay exits once its socket ends, after writing what was sent before.
    socket.end();
    input.release();
  }
}

/** `afterStdinEnd`: the client closed the relay's stdin before it signalled or killed it (`E` came first). */
type Frame =
  | { kind: 'term'; running: boolean; afterStdinEnd: boolean }
  | { kind: 'killed'; afterStdinEnd: boolean }
  | { kind: 'gone' };

/**
 * The relay's frames as the mock's stdin: `D` bytes are yielded, `E` ends the input; `T`
 * and `K` (also after `E`, while the mock still drains its replies) and a socket that closes
 * or breaks the framing call `onEnd` (the relay was signalled or killed), once the bytes that
 * came before are yielded: what the client wrote before it signalled is journaled first.
 */
class FrameInput implements AsyncIterable<Uint8Array> {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly queue: Buffer[] = [];
  private queued = 0;
  /** No more input: `E`, or the end. */
  private inputDone = false;
  /** Nothing more is read: `T`, a close, or release(). */
  private over = false;
  /** The end to report once the queue is yielded. */
  private pendingEnd: Frame | undefined;
  /** The iterator returned: nothing will yield the queue any more. */
  private returned = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly onEnd: (frame: Frame) => void,
  ) {
    socket.on('data', (chunk: Buffer) => this.push(chunk));
    socket.on('close', () => this.finish({ kind: 'gone' }));
  }

  push(chunk: Buffer): void {
    if (this.over) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const end = this.parse();
    if (end !== undefined) this.finish(end);
  }

  /** Takes every whole frame off the buffer; the end they bring about, if any. */
  private parse(): Frame | undefined {
    for (;;) {
      const kind = this.buffer[0];
      if (kind === undefined) return undefined;
      if (kind === 0x44 /* D */ && !this.inputDone) {
        if (this.buffer.length < 5) return undefined;
        const length = this.buffer.readUInt32BE(1);
        if (length > MAX_FRAME_BYTES) return { kind: 'gone' };
        if (this.buffer.length < 5 + length) return undefined;
        this.enqueue(this.buffer.subarray(5, 5 + length));
        this.buffer = this.buffer.subarray(5 + length);
      } else if (kind === 0x45 /* E */ && !this.inputDone) {
        this.inputDone = true;
        this.buffer = this.buffer.subarray(1);
        this.kick();
      } else if (kind === 0x54 /* T */) {
        if (this.buffer.length < 2) return undefined;
        return { kind: 'term', running: this.buffer[1] === 0x31, afterStdinEnd: this.inputDone };
      } else if (kind === 0x4b /* K */) {
        return { kind: 'killed', afterStdinEnd: this.inputDone };
      } else {
        return { kind: 'gone' };
      }
    }
  }

  /** Stops reading (the session is over). */
  release(): void {
    this.over = true;
    this.inputDone = true;
    this.pendingEnd = undefined;
    this.queue.length = 0;
    this.kick();
  }

  private finish(frame: Frame): void {
    if (this.over) return;
    this.over = true;
    this.inputDone = true;
    this.pendingEnd = frame;
    if (this.queue.length === 0 || this.returned) this.reportEnd();
    this.kick();
  }

  /** Before the input ends: the session must see why it ended. */
  private reportEnd(): void {
    const end = this.pendingEnd;
    this.pendingEnd = undefined;
    if (end !== undefined) this.onEnd(end);
  }

  private enqueue(bytes: Buffer): void {
    this.queue.push(bytes);
    this.queued += bytes.length;
    if (this.queued > QUEUE_HIGH_BYTES) this.socket.pause();
    this.kick();
  }

  private kick(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const next = this.queue.shift();
      if (next !== undefined) {
        this.queued -= next.length;
        if (this.queued <= QUEUE_HIGH_BYTES / 2) this.socket.resume();
        yield next;
        continue;
      }
      if (this.inputDone) {
        this.reportEnd();
        this.returned = true;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
