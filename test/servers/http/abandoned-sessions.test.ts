import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';

const DIST = pathToFileURL(resolve(import.meta.dirname, '../../../dist')).href;

/**
 * A server in a child started with --expose-gc (so the heap can be measured after a full
 * collection): it prints its port, then answers each line on stdin with its heap in use
 * after two collections.
 */
const CHILD = `
const [kind, dist] = process.argv.slice(1);
let port;
if (kind === 'mock') {
  const { startMockToolServer } = await import(dist + '/mocks/tools/index.js');
  // A small journal: what it keeps is bounded by design; this test is about the sessions.
  const s = await startMockToolServer({}, { journalLimits: { totalBytes: 256 * 1024 } });
  port = new URL(s.url).port;
} else {
  const { startToolServer } = await import(dist + '/servers/tools/index.js');
  const s = await startToolServer({ keepAliveMs: 0 });
  port = s.port;
}
process.stdout.write(JSON.stringify({ port: Number(port) }) + '\\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', () => {
  globalThis.gc();
  globalThis.gc();
  process.stdout.write(JSON.stringify({ heap: process.memoryUsage().heapUsed }) + '\\n');
});
`;

interface Child {
  port: number;
  heap(): Promise<number>;
  stop(): void;
}

const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.stop();
});

async function startChild(kind: 'mock' | 'reference'): Promise<Child> {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD, kind, DIST], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(((await lines.next()).value as string | undefined) ?? 'null');
  const { port } = (await next()) as { port: number };
  const stopped = { done: false };
  child.once('exit', () => {
    stopped.done = true;
  });
  const handle: Child = {
    port,
    heap: async () => {
      child.stdin.write('gc\n');
      return ((await next()) as { heap: number }).heap;
    },
    stop: () => {
      if (!stopped.done) child.kill('SIGKILL');
    },
  };
  children.push(handle);
  return handle;
}

/** Open an SSE session, wait for its endpoint event, then drop the connection without a word. */
function abandonOne(port: number): Promise<void> {
  return new Promise((ok, fail) => {
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      socket.destroy();
      fail(new Error('no endpoint event within 5 s'));
    }, 5_000);
    let seen = '';
    socket.on('error', () => {});
    socket.on('data', (b: Buffer) => {
      seen += b.toString('latin1');
      if (!seen.includes('event: endpoint')) return;
      clearTimeout(timer);
      socket.destroy();
      ok();
    });
    socket.write(`GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
}

async function abandon(port: number, count: number, parallel = 100): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      await abandonOne(port);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  // The server sees each close a moment after the client's.
  await new Promise((r) => setTimeout(r, 200));
}

const SESSIONS_PER_ROUND = 3_000;
const MiB = 1024 * 1024;

describe('abandoned SSE sessions are freed (closed sockets release everything)', () => {
  test.each(['mock', 'reference'] as const)(
    '%s tool server: the heap after three rounds of 3,000 abandoned sessions is back near where the first round left it',
    async (kind) => {
      const child = await startChild(kind);
      const start = await child.heap();
      await abandon(child.port, SESSIONS_PER_ROUND);
      const afterFirst = await child.heap();
      await abandon(child.port, SESSIONS_PER_ROUND);
      await abandon(child.port, SESSIONS_PER_ROUND);
      const afterThird = await child.heap();
      // Before the fix the mock kept ~20 MiB of heap per round (every session, its socket and its journal).
      expect(afterThird - afterFirst, `heap ${start} -> ${afterFirst} -> ${afterThird}`).toBeLessThan(
        4 * MiB,
      );
      expect(afterThird - start).toBeLessThan(8 * MiB);
    },
    60_000,
  );
});
