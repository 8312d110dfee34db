import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { toolScenario } from '../../../src/mocks/tools/index.js';
import { STDIO_ENDS, stdioSessionName } from '../../../src/mocks/tools/stdio.js';
import {
  findPerl,
  MAX_RELAYED_SESSIONS,
  type RelayedStdioSession,
  type StdioRelayHost,
  startStdioRelayHost,
} from '../../../src/mocks/tools/stdio-relay.js';
import { call, init } from './requests.js';

let dir: string;
let host: StdioRelayHost;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-relay-test-'));
  const started = await startStdioRelayHost(dir, findPerl());
  if (started === undefined) throw new Error('these tests need perl on PATH, as the CI machine has');
  host = started;
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

/** What a relay sends first: its session's token, then one data frame of `text` (4-byte length, bytes). */
function helloAndData(token: string, text: string): Buffer {
  const body = Buffer.from(text);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([Buffer.from(`H${token}D`), length, body]);
}

/** Starts `command` as a client would (sh -c), collecting its stdout; `exit` settles with its status. */
function start(command: string) {
  const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exit, stdout: () => stdout };
}

/** Resolves once `predicate` holds, polling every 10 ms for at most 5 s. */
async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !predicate(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!predicate()) throw new Error('timed out');
}

describe("the stdio relay: the mock in the harness, a perl relay as the client's server process", () => {
  test('carries a session both ways; stdin closed right after the last request still gets its reply', async () => {
    const session = host.session(toolScenario({}));
    const relay = start(session.command);
    relay.child.stdin?.end(`${init}\n${call}\n`);
    expect(await relay.exit).toEqual({ code: 0, signal: null });
    expect(await session.ended).toBe('eof');
    const replies = relay
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(replies.map((r) => r.id)).toEqual([1, 2]);
    const entries = session.journal.entries();
    expect(
      entries.filter((e) => e.direction === 'received' && e.kind === 'message').map((e) => e.text),
    ).toEqual([init, call]);
    expect(entries.at(-1)).toMatchObject({ kind: 'closed', direction: 'received', text: 'stdin ended' });
  });

  test('a session the mock closes ends the relay, its stdin still open', async () => {
    const session = host.session(toolScenario({ faults: { closeStreamAfter: 1 } }));
    const relay = start(session.command);
    relay.child.stdin?.write(`${init}\n${call}\n`);
    expect(await relay.exit).toEqual({ code: 0, signal: null });
    expect(await session.ended).toBe('closed');
    expect(
      relay
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1]);
  });

  test('a client that does not read its stdout stops the mock reading, as a process blocked on its stdout would', async () => {
    const session = host.session(toolScenario({}));
    const child = spawn('sh', ['-c', session.command], { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    child.stdout.pause();
    const calls = 200;
    const text = 'x'.repeat(64 * 1024);
    child.stdin.write(`${init}\n`);
    for (let id = 2; id < calls + 2; id++) {
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } })}\n`,
      );
    }
    const received = () =>
      session.journal.entries().filter((e) => e.kind === 'message' && e.direction === 'received').length;
    await until(() => received() > 5);
    await new Promise((r) => setTimeout(r, 500));
    // The relay, blocked on its stdout, reads no more stdin: pipe and socket buffers hold a few
    // dozen calls of 64 KiB, and the harness keeps only the replies to those.
    expect(received()).toBeLessThan(80);
    let replies = 0;
    child.stdout.on('data', (d: Buffer) => {
      replies += d.toString('latin1').split('\n').length - 1;
    });
    child.stdout.resume();
    await until(() => replies === calls + 1);
    expect(received()).toBe(calls + 1);
    child.stdin.end();
  });

  test('a SIGTERM while the client runs is journaled as the mock process journals it, and the relay exits 143', async () => {
    const session = host.session(toolScenario({}));
    const relay = start(session.command);
    relay.child.stdin?.write(`${init}\n`);
    await until(() => relay.stdout().includes('"id":1'));
    relay.child.kill('SIGTERM');
    expect(await relay.exit).toEqual({ code: 143, signal: null });
    expect(await session.ended).toBe('vanished');
    const ends = session.journal.entries().filter((e) => e.kind === 'closed');
    expect(ends.map((e) => e.text)).toEqual(['SIGTERM while the client was running']);
  });

  test('a SIGTERM after the process that started the relay exited says so', async () => {
    const session = host.session(toolScenario({}));
    const { parent, pid } = await orphanedRelay(session);
    await parent.exit;
    process.kill(pid, 'SIGTERM');
    expect(await session.ended).toBe('vanished');
    const ends = session.journal.entries().filter((e) => e.kind === 'closed');
    expect(ends.map((e) => e.text)).toEqual(['SIGTERM after the client exited']);
  });

  test('a relay killed alone while the client runs, its stdin open, is journaled as killed', async () => {
    const session = host.session(toolScenario({}));
    const relay = start(session.command);
    relay.child.stdin?.write(`${init}\n`);
    await until(() => relay.stdout().includes('"id":1'));
    relay.child.kill('SIGKILL');
    expect(await relay.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await session.ended).toBe('vanished');
    const ends = session.journal.entries().filter((e) => e.kind === 'closed');
    expect(ends.map((e) => e.text)).toEqual([STDIO_ENDS.killedWhileRunning]);
  });

  test("a relay killed with its whole group (as wirecheck kills a client's) leaves no end in the journal", async () => {
    const session = host.session(toolScenario({}));
    const child = spawn('sh', ['-c', session.command], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    children.push(child);
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stdin.write(`${init}\n`);
    await until(() => stdout.includes('"id":1'));
    process.kill(-(child.pid ?? 0), 'SIGKILL');
    expect(await session.ended).toBe('vanished');
    await session.idle();
    expect(session.journal.entries().filter((e) => e.kind === 'closed')).toEqual([]);
  });

  test('a relay killed after the process that started it exited leaves no end in the journal', async () => {
    const session = host.session(toolScenario({}));
    const { parent, pid } = await orphanedRelay(session);
    await parent.exit;
    process.kill(pid, 'SIGKILL');
    expect(await session.ended).toBe('vanished');
    await session.idle();
    expect(session.journal.entries().filter((e) => e.kind === 'closed')).toEqual([]);
  });

  test('a relay that exits on its own has reaped its watcher: its group is empty once it exited', async () => {
    const session = host.session(toolScenario({}));
    const child = spawn('sh', ['-c', session.command], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    children.push(child);
    // Looked at as the relay's exit is seen: an orphaned watcher would linger (a zombie, at best).
    const groupLeft = new Promise<boolean>((resolve) =>
      child.on('exit', () => {
        try {
          process.kill(-(child.pid ?? 0), 0);
          resolve(true);
        } catch {
          resolve(false);
        }
      }),
    );
    child.stdin.end(`${init}\n`);
    expect(await session.ended).toBe('eof');
    expect(await groupLeft).toBe(false);
    expect(
      session.journal
        .entries()
        .filter((e) => e.kind === 'closed')
        .map((e) => e.text),
    ).toEqual([STDIO_ENDS.stdinEnded]);
  });

  test('frames split at every byte are put back together', async () => {
    const session = host.session(toolScenario({}));
    const token = tokenOf(session.command);
    const bytes = Buffer.concat([helloAndData(token, `${init}\n`), Buffer.from('E')]);
    const socket = connect(join(dir, 'relay.sock'));
    let answer = '';
    socket.on('data', (d: Buffer) => {
      answer += d.toString('utf8');
    });
    for (const byte of bytes) {
      socket.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
    expect(await session.ended).toBe('eof');
    await new Promise((r) => socket.on('close', r));
    expect(JSON.parse(answer.trim()).id).toBe(1);
  });

  test('what the client wrote before a SIGTERM is journaled before it, even when both arrive at once', async () => {
    const session = host.session(toolScenario({}));
    const socket = connect(join(dir, 'relay.sock'));
    socket.on('data', () => {});
    socket.write(
      Buffer.concat([helloAndData(tokenOf(session.command), `${init}\n${call}\n`), Buffer.from('T1')]),
    );
    expect(await session.ended).toBe('vanished');
    socket.destroy();
    const received = session.journal.entries().filter((e) => e.direction === 'received');
    expect(received.map((e) => (e.kind === 'message' ? JSON.parse(e.text).id : e.text))).toEqual([
      1,
      2,
      'SIGTERM while the client was running',
    ]);
  });

  test.each([
    ['T1', STDIO_ENDS.termAfterStdinEnd],
    ['K', STDIO_ENDS.killedAfterStdinEnd],
  ])('a %s that follows the end of stdin says the stdin ended first', async (frame, text) => {
    const session = host.session(toolScenario({}));
    const socket = connect(join(dir, 'relay.sock'));
    socket.on('data', () => {});
    // Stdin closed, then the relay signalled before the mock was done with it: what a client that
    // closes stdin and kills at once (child.stdin.end(); child.kill()) makes.
    socket.write(
      Buffer.concat([helloAndData(tokenOf(session.command), `${init}\n`), Buffer.from(`E${frame}`)]),
    );
    expect(await session.ended).toBe('vanished');
    socket.destroy();
    const ends = session.journal.entries().filter((e) => e.kind === 'closed');
    expect(ends.map((e) => e.text)).toEqual([text]);
  });

  test('a connection with an unknown token, or a frame no relay sends, is dropped', async () => {
    const session = host.session(toolScenario({}));
    const token = tokenOf(session.command);
    const stranger = connect(join(dir, 'relay.sock'));
    stranger.write(`H${'0'.repeat(32)}`);
    await new Promise((r) => stranger.on('close', r));

    const oversized = connect(join(dir, 'relay.sock'));
    oversized.on('error', () => {});
    const header = Buffer.alloc(4);
    header.writeUInt32BE(65 * 1024);
    oversized.write(Buffer.concat([Buffer.from(`H${token}D`), header]));
    expect(await session.ended).toBe('vanished');
    await new Promise((r) => oversized.on('close', r));
    // The token was spent: the session's relay could not attach again.
    expect(session.journal.entries()).toEqual([]);
  });

  test('a connection that names no session within 5 s is closed', async () => {
    const silent = connect(join(dir, 'relay.sock'));
    const started = performance.now();
    await new Promise((r) => silent.on('close', r));
    expect(performance.now() - started).toBeGreaterThan(4_000);
  }, 15_000);

  test("each server process a client starts is a session of its own in the case's journal, up to MAX_RELAYED_SESSIONS; after stop() none is served", async () => {
    const session = host.session(toolScenario({}));
    await session.idle();
    for (let n = 0; n < MAX_RELAYED_SESSIONS + 1; n++) {
      const relay = start(session.command);
      relay.child.stdin?.end(`${init}\n`);
      await relay.exit;
      // Each one served answers initialize; the one past the limit is turned away unanswered.
      expect(relay.stdout().includes('"id":1'), `process ${n + 1}`).toBe(n < MAX_RELAYED_SESSIONS);
    }
    await session.idle();
    expect(await session.ended).toBe('eof');
    const initializes = session.journal
      .entries()
      .filter((e) => e.direction === 'received' && e.kind === 'message')
      .map((e) => e.session);
    expect(initializes).toEqual(Array.from({ length: MAX_RELAYED_SESSIONS }, (_, n) => stdioSessionName(n)));
    expect(initializes.slice(0, 2)).toEqual(['stdio', 'stdio-2']);
    session.stop();
    const late = start(session.command);
    late.child.stdin?.end(`${init}\n`);
    await late.exit;
    expect(late.stdout()).toBe('');
  }, 30_000);

  test('a session whose relay never connected ends when stopped', async () => {
    const session = host.session(toolScenario({}));
    session.stop();
    expect(await session.ended).toBe('never-connected');
  });
});

describe('where the relay cannot be used', () => {
  test('no perl on PATH: no host (the suite starts the mock as a process of its own)', async () => {
    expect(findPerl('/nonexistent:relative/dir')).toBeUndefined();
    expect(await startStdioRelayHost(dir, undefined)).toBeUndefined();
  });

  test('a perl that does not run the relay (here /bin/true): no host', async () => {
    const other = await mkdtemp(join(tmpdir(), 'wirecheck-relay-test-'));
    try {
      expect(await startStdioRelayHost(other, '/bin/true')).toBeUndefined();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  test('a socket path already taken: no host', async () => {
    expect(await startStdioRelayHost(dir, findPerl())).toBeUndefined();
  });

  test('a socket path longer than Linux takes: no host', async () => {
    expect(await startStdioRelayHost(join(dir, 'd'.repeat(120)), '/usr/bin/perl')).toBeUndefined();
  });
});

/**
 * A relay whose parent exits once it carried a message: the shell starts it in the background,
 * prints its pid, and exits when told, so the relay is re-parented. Its stdin is a FIFO it
 * holds open for writing too, so it never ends; the shell waits on another.
 */
async function orphanedRelay(session: RelayedStdioSession) {
  const [input, gate] = [join(dir, 'stdin.fifo'), join(dir, 'gate.fifo')];
  expect(spawnSync('mkfifo', [input, gate]).status).toBe(0);
  const parent = start(`${session.command} <>${input} & echo $!; read _ <${gate}`);
  await appendFile(input, `${init}\n`);
  await until(() => session.journal.entries().some((e) => e.kind === 'message'));
  const pid = Number(parent.stdout().trim().split('\n')[0]);
  expect(pid).toBeGreaterThan(1);
  await appendFile(gate, 'go\n');
  return { parent, pid };
}

function tokenOf(command: string): string {
  const token = /([0-9a-f]{32})$/.exec(command)?.[1];
  if (token === undefined) throw new Error(`no token at the end of ${command}`);
  return token;
}
