import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { StreamTransport } from './stream.js';
import { type Transport, TransportClosedError, TransportError } from './transport.js';

export interface ChildProcessTransportOptions {
  /** Environment of the server (default: this process's). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Named in errors; default "stdio server `CMD`". */
  readonly label?: string;
  /** Bytes of the server's stderr kept for error messages (default 8 KiB, the last ones). */
  readonly stderrTailBytes?: number;
  /** Called with every stderr chunk (logs are the server's business; a CLI may pass them on). */
  readonly onStderr?: (chunk: Buffer) => void;
  /** After closing its stdin, how long the server may take to exit on its own (default 300 ms). */
  readonly exitGraceMs?: number;
  /** Between SIGTERM and SIGKILL to the server's process group (default 2000 ms). */
  readonly killGraceMs?: number;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * The client side of the stdio transport: the server command runs through `sh -c` in its
 * own process group, and newline-delimited JSON-RPC flows over its stdin and stdout
 * (StreamTransport). A line on stdout that is not JSON ends the connection at once, as the
 * spec demands ("client parser fails and the connection is terminated at once"): the
 * error names the line and the server is stopped.
 *
 * The session ends when the process ends: an exit the client did not ask for is reported
 * to `onerror` (kind `connection`, fatal) with the exit status and the tail of stderr, then
 * `onclose`. `close()` ends stdin, gives the server a short grace to exit, then sends
 * SIGTERM to the whole group and SIGKILL after another grace; whatever the server left in
 * its group is killed once it exits.
 */
export class ChildProcessTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: TransportError) => void;
  onclose?: () => void;
  private readonly label: string;
  private child: Child | undefined;
  private stream: StreamTransport | undefined;
  private stderrChunks: Buffer[] = [];
  private stderrBytes = 0;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exited: Promise<void> = Promise.resolve();
  /** Settles once stdout and stderr are drained too (Node's 'close'). */
  private drained: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private fatalReported = false;
  private closeRequested = false;

  constructor(
    readonly command: string,
    private readonly options: ChildProcessTransportOptions = {},
  ) {
    this.label = options.label ?? `stdio server \`${command}\``;
  }

  /** The pid of `sh`, which is also the process group id of the server. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last bytes the server wrote on stderr. */
  get stderrTail(): string {
    return Buffer.concat(this.stderrChunks).toString('utf8');
  }

  async start(): Promise<void> {
    if (this.child !== undefined) throw new Error(`${this.label}: start() was called twice`);
    const child = spawn('sh', ['-c', this.command], {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: this.options.cwd,
      env: definedOnly(this.options.env ?? process.env),
    });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        resolve();
        if (this.closing !== undefined) return;
        // `sh` ended by itself, so the server did: whatever it left behind in its group goes too.
        this.signalGroup('SIGKILL');
        void this.shutdown();
      });
    });
    this.drained = new Promise((resolve) => child.once('close', () => resolve()));
    child.stderr.on('data', (chunk: Buffer) => {
      this.keepStderr(chunk);
      this.options.onStderr?.(chunk);
    });
    child.stdin.on('error', () => {
      // EPIPE when the server exits without reading: the exit is what gets reported.
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (e) => {
        this.exitStatus ??= { code: null, signal: null };
        reject(new TransportError('connection', `${this.label}: could not start: ${e.message}`, true));
      });
    });
    const stream = new StreamTransport({
      input: child.stdout,
      output: child.stdin,
      closeOnParseError: true,
      label: this.label,
    });
    stream.onmessage = (m) => this.onmessage?.(m);
    stream.onerror = (e) => {
      if (this.closing !== undefined && !e.fatal) return;
      if (e.fatal) this.fatalReported = true;
      this.onerror?.(e);
    };
    // stdout ended or a non-JSON line: the connection is over, whatever the process does.
    stream.onclose = () => {
      if (this.closing === undefined) void this.shutdown();
    };
    this.stream = stream;
    await stream.start();
  }

  async send(message: unknown): Promise<void> {
    const stream = this.stream;
    if (stream === undefined || this.closing !== undefined) throw new TransportClosedError(this.label);
    try {
      await stream.send(message);
    } catch (e) {
      if (e instanceof TransportClosedError || this.closing !== undefined)
        throw new TransportClosedError(this.label);
      throw new TransportError(
        'connection',
        `${this.label}: writing to stdin failed: ${(e as Error).message}`,
        true,
      );
    }
  }

  close(): Promise<void> {
    this.closeRequested = true;
    return this.shutdown();
  }

  private shutdown(): Promise<void> {
    // Set before stop() runs: closing the inner stream calls back into here synchronously.
    this.closing ??= Promise.resolve().then(() => this.stop());
    return this.closing;
  }

  private async stop(): Promise<void> {
    await this.stream?.close();
    const child = this.child;
    /** Set when the process had to be signalled: it did not end by itself. */
    let stopped = false;
    // `sh` does not exec the command, so its exit says little; the pipes closing (Node's
    // 'close') says that the server and everything holding its stdio are gone.
    if (child?.pid !== undefined) {
      child.stdin.end();
      if (!(await settlesWithin(this.drained, this.options.exitGraceMs ?? 300))) {
        stopped = true;
        this.signalGroup('SIGTERM');
        if (!(await settlesWithin(this.drained, this.options.killGraceMs ?? 2_000))) {
          this.signalGroup('SIGKILL');
        }
      }
      await settlesWithin(this.exited, 2_000);
      // A leftover that let go of the pipes (a daemon) does not outlive the session.
      this.signalGroup('SIGKILL');
    }
    await settlesWithin(this.drained, 500);
    if (!this.closeRequested && !this.fatalReported) this.onerror?.(this.exitError(stopped));
    this.onclose?.();
  }

  private exitError(stoppedByUs: boolean): TransportError {
    const status = this.exitStatus;
    const how =
      status === undefined || stoppedByUs
        ? 'closed its stdout'
        : status.signal !== null
          ? `was killed by ${status.signal}`
          : `exited with code ${status.code}`;
    const tail = this.stderrTail.trim();
    return new TransportError(
      'connection',
      `${this.label} ${how}${tail === '' ? ' (nothing on stderr)' : `; the end of its stderr: ${tail.slice(-1000)}`}`,
      true,
    );
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  private keepStderr(chunk: Buffer): void {
    const max = this.options.stderrTailBytes ?? 8 * 1024;
    this.stderrChunks.push(chunk);
    this.stderrBytes += chunk.length;
    while (this.stderrBytes > max && this.stderrChunks.length > 1) {
      this.stderrBytes -= (this.stderrChunks.shift() as Buffer).length;
    }
    if (this.stderrBytes > max) {
      const only = this.stderrChunks[0] as Buffer;
      this.stderrChunks = [only.subarray(only.length - max)];
      this.stderrBytes = max;
    }
  }
}

function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void p.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
}
