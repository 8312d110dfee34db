import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { roundMs } from '../../fixtures/chunks.js';
import {
  FIXTURE_FORMAT,
  FIXTURE_VERSION,
  type ToolMessage,
  type ToolSession,
} from '../../fixtures/schema.js';
import { spawnContained } from '../../harness/containment/index.js';
import { waitAtMost } from '../../harness/wait-at-most.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../protocol/jsonrpc/index.js';
import { mergeSecrets } from '../redact.js';
import { createPacer, DISK_QUEUE_LIMIT } from '../relay-server.js';
import { createLineRecorder } from './lines.js';
import { redactCommand, secretsOfCommand, secretsOfEnv } from './redact-target.js';
import { openSessionLog, type SessionSink } from './store.js';

export interface StdioRecorderOptions extends SessionSink {
  /** The real server, run by `sh -c` in its own process group. */
  readonly command: string;
  /** The client's side: what it writes to "the server's" stdin. */
  readonly input: AsyncIterable<Uint8Array | string>;
  /**
   * Where the server's stdout goes, unchanged (the recorder's own stdout). A promise returned
   * says the output is behind: the server's stdout is not read until it settles, so a client
   * that reads slowly costs the server's pipe, not the recorder's memory.
   */
  write(bytes: Uint8Array): void | Promise<void>;
  /** Where the server's stderr goes, unchanged; paced as `write`. */
  writeError(bytes: Uint8Array): void | Promise<void>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Stops the session: the server's group gets SIGTERM, then SIGKILL after 2 s. */
  readonly signal?: AbortSignal;
}

export interface StdioRecording {
  /** How the server ended. */
  readonly exit: { code: number | null; signal: string | null };
  /** The session (undefined only when its journal could not be written: `onWriteError` said why). */
  readonly session: ToolSession | undefined;
  /** The fixture file, when `outDir` was given and it could be written. */
  readonly file: string | undefined;
}

/**
 * A stdio tool server with a recorder in the middle: runs the real server and relays the
 * client's bytes to its stdin and its stdout back, unchanged and unbuffered, while
 * recording every line of both directions with its time (from the spawn). The server's
 * stderr passes through. The session ends when the server exits (its stdin is closed when
 * the client's input ends); then the fixture is written.
 */
export async function recordStdioSession(options: StdioRecorderOptions): Promise<StdioRecording> {
  const env = options.env ?? process.env;
  // The command's own credentials (`API_TOKEN=... server`, `--token ...`) are the server's to echo.
  const secrets = mergeSecrets(secretsOfEnv(env), secretsOfCommand(options.command));
  const recordedAt = new Date().toISOString();
  // Each line is journaled as it ends (outDir): a recorder killed mid-session keeps them.
  const log = openSessionLog(
    {
      format: FIXTURE_FORMAT,
      version: FIXTURE_VERSION,
      kind: 'tool-session',
      recordedAt,
      source: 'wirecheck record tools --stdio',
      transport: 'stdio',
      server: redactCommand(options.command, secrets),
    },
    options,
  );
  const push = (m: ToolMessage) => log.message(m);
  const fromClient = createLineRecorder('client->server', push, DEFAULT_MAX_LINE_BYTES, secrets);
  const fromServer = createLineRecorder('server->client', push, DEFAULT_MAX_LINE_BYTES, secrets);
  const t0 = performance.now();
  const since = () => performance.now() - t0;

  // Contained like a target (src/harness/containment): what the server starts, setsid
  // escapees included, is killed when the session ends.
  const contained = spawnContained(options.command, {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    env,
  });
  const child = contained.child as ChildProcessWithoutNullStreams;
  const group = (signal: NodeJS.Signals) => contained.signalGroup(signal);
  // The server's output is read no faster than the client and the journal's disk take it.
  const stdoutPacer = createPacer(child.stdout);
  const stderrPacer = createPacer(child.stderr);
  let paced = true;
  // Once the server is gone or being stopped, what is left in its pipes is read whatever the
  // client does: bounded by the pipes, and the session can end.
  const unpace = () => {
    paced = false;
    child.stdout.resume();
    child.stderr.resume();
  };
  child.once('exit', () => {
    unpace();
    // Once the server is gone, so is what it left (which could hold its pipes open).
    void contained.close();
  });
  child.stdout.on('data', (b: Buffer) => {
    fromServer.feed(b, since());
    const behind = options.write(b);
    if (!paced) return;
    if (behind) stdoutPacer.output(behind);
    stdoutPacer.disk(log);
  });
  child.stderr.on('data', (b: Buffer) => {
    const behind = options.writeError(b);
    if (paced && behind) stderrPacer.output(behind);
  });
  child.stdin.on('error', () => {
    // EPIPE once the server is gone: its exit is what the recording says.
  });
  const closed = new Promise<{ code: number | null; signal: string | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    unpace();
    group('SIGTERM');
    killTimer = setTimeout(() => group('SIGKILL'), 2_000);
    killTimer.unref();
  };
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });

  const iterator = options.input[Symbol.asyncIterator]();
  // Never rejects: nothing awaits it until the server has exited, and a rejection
  // unhandled meanwhile would end the caller's process.
  const pump = (async () => {
    // A server that could not start ends the relay as one that exited does; the caller
    // gets its error from `closed`.
    const gone = closed.then(
      () => 'gone' as const,
      () => 'gone' as const,
    );
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), gone]);
        if (next === 'gone') break;
        if (next.done) {
          fromClient.end(since());
          child.stdin.end();
          break;
        }
        const bytes = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        fromClient.feed(bytes, since());
        if (!child.stdin.write(bytes)) {
          await Promise.race([new Promise((r) => child.stdin.once('drain', r)), gone]);
        }
        if (log.queuedBytes > DISK_QUEUE_LIMIT) await Promise.race([log.drained(), gone]);
      }
    } catch {
      // The client's input failed: the session goes on as if it had ended there.
      fromClient.end(since());
      child.stdin.end();
    }
  })();

  let exit: { code: number | null; signal: string | null };
  try {
    exit = await closed;
  } catch (e) {
    // The server could not be started: no session to keep.
    await log.discard();
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    clearTimeout(killTimer);
    // Whatever the server left, in its group or not, does not outlive the session.
    await contained.close();
  }
  fromServer.end(since());
  void iterator.return?.();
  await waitAtMost(pump, 50);
  const { session, file } = await log.end({ endAtMs: roundMs(since()), exit });
  return { exit, session, file };
}
