import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { findPerl } from '../../src/mocks/tools/stdio-relay.js';
import {
  HANDLER_FAILED_STATUS,
  STDIN_BACKLOG_BYTES,
  startWarmServer,
  WARM_RELAY_PATH,
  type WarmCase,
  type WarmHandler,
  type WarmServer,
} from '../../src/warm/index.js';

const PERL = (() => {
  const found = findPerl();
  if (found === undefined) throw new Error('these tests need perl on PATH, as the CI machine has');
  return found;
})();

let dir: string;
let servers: WarmServer[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wc-warm-'));
  servers = [];
});
afterEach(async () => {
  for (const server of servers) await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(handler: WarmHandler, logs: string[] = []): Promise<WarmServer> {
  const server = await startWarmServer({ socket: join(dir, 'warm.sock'), handler, log: (l) => logs.push(l) });
  servers.push(server);
  return server;
}

interface RelayRun {
  readonly pid: number;
  readonly done: Promise<{
    status: number | null;
    signal: NodeJS.Signals | null;
    stdout: Buffer;
    stderr: string;
  }>;
}

/** A server whose one case runs until it is aborted: `running` once it started, `abortedCase` once aborted. */
async function serveUntilAborted() {
  let aborted!: () => void;
  const abortedCase = new Promise<void>((resolve) => (aborted = resolve));
  let reached!: () => void;
  const running = new Promise<void>((resolve) => (reached = resolve));
  const server = await serve(async (c) => {
    c.signal.addEventListener('abort', () => aborted(), { once: true });
    reached();
    await abortedCase;
    return 0;
  });
  return { server, running, abortedCase };
}

/** The relay as a suite starts it: its own process, this environment, `stdin` written and closed (unless null). */
function relay(socket: string, stdin: Buffer | string | null, env: NodeJS.ProcessEnv = {}): RelayRun {
  const child = spawn(PERL, [WARM_RELAY_PATH, socket], { env: { PATH: process.env.PATH, ...env } });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => stdout.push(c));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // A relay that ends before it read all of its stdin (its case answered or was ended) leaves the rest unwritten.
  child.stdin.on('error', () => {});
  if (stdin !== null) child.stdin.end(stdin);
  const done = new Promise<Awaited<RelayRun['done']>>((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal, stdout: Buffer.concat(stdout), stderr })),
  );
  return { pid: child.pid!, done };
}

async function readAll(stdin: WarmCase['stdin']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  ]);
}

describe('the warm relay and its server', () => {
  test("the relay's environment and stdin reach the handler; its stdout, stderr and status come back", async () => {
    const server = await serve(async (c) => {
      const input = await readAll(c.stdin);
      c.writeStdout(`${c.env.WIRECHECK_BASE_URL} ${input.toString()}`);
      c.writeStderr('a log line\n');
      return 3;
    });
    const run = await relay(server.socket, 'the request', { WIRECHECK_BASE_URL: 'http://127.0.0.1:9/x=y' })
      .done;
    expect(run).toEqual({
      status: 3,
      signal: null,
      stdout: Buffer.from('http://127.0.0.1:9/x=y the request'),
      stderr: 'a log line\n',
    });
  });

  test('several MiB each way arrive byte for byte, however the pipes cut them', async () => {
    const input = Buffer.alloc(3 * 1024 * 1024 + 7);
    for (let i = 0; i < input.length; i++) input[i] = (i * 31 + (i >> 9)) & 255;
    const server = await serve(async (c) => {
      const got = await readAll(c.stdin);
      c.writeStdout(Buffer.concat([got, got]));
      return 0;
    });
    const run = await within(relay(server.socket, input).done, 30_000, 'the relay');
    expect(run.status).toBe(0);
    expect(run.stdout.equals(Buffer.concat([input, input]))).toBe(true);
  });

  test('a handler that throws, or names no exit status, ends the case with 70 and says why on stderr', async () => {
    const logs: string[] = [];
    const throwing = await serve(async () => {
      throw new Error('the client is not configured');
    }, logs);
    const run = await relay(throwing.socket, '').done;
    expect(run.status).toBe(HANDLER_FAILED_STATUS);
    expect(run.stderr).toBe('warm server: the client is not configured\n');
    expect(logs).toEqual(['a case failed: the client is not configured']);
    await throwing.close();
    const bad = await serve(async () => 256);
    const second = await relay(bad.socket, '').done;
    expect(second.status).toBe(HANDLER_FAILED_STATUS);
    expect(second.stderr).toMatch(/resolved to 256, not an exit status 0-255/);
  });

  test.each([
    ['SIGKILL', null],
    ['SIGTERM', 143],
  ] as const)('a relay ended by %s while its case runs aborts the case', async (signal, status) => {
    const { server, running, abortedCase } = await serveUntilAborted();
    // stdin left open: the relay waits in select, as a client waiting for its answer does.
    const run = relay(server.socket, null);
    await within(running, 10_000, 'the case');
    process.kill(run.pid, signal);
    await within(abortedCase, 10_000, 'the abort');
    const ended = await run.done;
    expect(ended.status).toBe(status);
  });

  test('a server that goes away before the exit status, or is not there, makes the relay exit 111 saying so', async () => {
    let reached!: () => void;
    const running = new Promise<void>((resolve) => (reached = resolve));
    const server = await serve(async (c) => {
      reached();
      await new Promise((resolve) => c.signal.addEventListener('abort', resolve, { once: true }));
      return 0;
    });
    const run = relay(server.socket, null);
    await within(running, 10_000, 'the case');
    await server.close();
    const lost = await run.done;
    expect(lost.status).toBe(111);
    expect(lost.stderr).toBe('warm-relay: the server closed the connection before an exit status\n');
    const none = await relay(join(dir, 'nobody.sock'), '').done;
    expect(none.status).toBe(111);
    expect(none.stderr).toMatch(
      /^warm-relay: cannot connect to .*nobody\.sock: No such file or directory\n$/,
    );
  });

  test('the socket is for this user only, and close removes it', async () => {
    const server = await serve(async () => 0);
    expect((await stat(server.socket)).mode & 0o777).toBe(0o600);
    await server.close();
    await expect(stat(server.socket)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('a socket its server left behind is replaced; a file, or a socket a server answers on, is refused', async () => {
    const path = join(dir, 'warm.sock');
    // perl binds the path and exits: the socket file stays, with nobody listening.
    const bound = spawnSync(PERL, [
      '-e',
      'socket(S,1,1,0) or die; bind(S, pack("S Z108", 1, $ARGV[0])) or die',
      path,
    ]);
    expect(bound.status).toBe(0);
    expect((await stat(path)).isSocket()).toBe(true);
    const server = await serve(async (c) => {
      c.writeStdout('first');
      return 0;
    });
    await expect(startWarmServer({ socket: path, handler: async () => 0 })).rejects.toThrow(
      `a server already listens on ${path}`,
    );
    expect((await relay(path, '').done).stdout.toString()).toBe('first');
    await server.close();
    await writeFile(path, 'notes');
    await expect(startWarmServer({ socket: path, handler: async () => 0 })).rejects.toThrow(
      `${path} exists and is not a socket: it is not replaced`,
    );
    expect(await readFile(path, 'utf8')).toBe('notes');
  });

  test("a handler that answers without reading its relay's stdin (MiBs of it) ends the case, and the server closes", async () => {
    const server = await serve(async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      c.writeStdout('answer\n');
      return 0;
    });
    const run = await within(
      relay(server.socket, Buffer.alloc(8 * 1024 * 1024, 0x61)).done,
      10_000,
      'the relay',
    );
    expect([run.status, run.stdout.toString()]).toEqual([0, 'answer\n']);
    await within(server.close(), 5_000, 'close');
  });

  test('a relay killed while its handler reads none of its stdin (MiBs of it) aborts the case', async () => {
    const { server, running, abortedCase } = await serveUntilAborted();
    const run = relay(server.socket, Buffer.alloc(4 * 1024 * 1024, 0x61));
    await within(running, 10_000, 'the case');
    // Long enough for the relay to fill what the server queues before it pauses.
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(run.pid, 'SIGKILL');
    await within(abortedCase, 10_000, 'the abort');
    await run.done;
  });

  test('stdin a handler never reads is queued up to a bound: past it the case ends, said in the log', async () => {
    const logs: string[] = [];
    const server = await serve(async (c) => {
      await new Promise((resolve) => c.signal.addEventListener('abort', resolve, { once: true }));
      return 0;
    }, logs);
    const run = await within(
      relay(server.socket, Buffer.alloc(STDIN_BACKLOG_BYTES + 4 * 1024 * 1024, 0x61)).done,
      20_000,
      'the relay',
    );
    expect(run.status).toBe(111);
    expect(logs).toEqual([
      `a case's handler left more than ${STDIN_BACKLOG_BYTES} bytes of stdin unread: the case is ended`,
    ]);
  });

  test('a peer that is not a relay is dropped, and the server goes on', async () => {
    const logs: string[] = [];
    const server = await serve(async (c) => {
      c.writeStdout('still here');
      return 0;
    }, logs);
    await new Promise<void>((resolve) => {
      const socket = connect(server.socket, () => socket.write('GET / HTTP/1.1\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => {});
    });
    expect(logs).toEqual(['not a warm relay: unknown frame type "G"; expected E, I or Z']);
    const run = await relay(server.socket, '').done;
    expect(run.stdout.toString()).toBe('still here');
  });
});
