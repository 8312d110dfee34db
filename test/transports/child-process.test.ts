import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  ChildProcessTransport,
  TransportClosedError,
  type TransportError,
} from '../../src/transports/index.js';

let dir: string;
const started: ChildProcessTransport[] = [];

/** A JSON-RPC echo server; BANNER and CRASH select its faults. */
const SERVER = `
import { createInterface } from 'node:readline';
if (process.env.BANNER) process.stdout.write(process.env.BANNER + '\\n');
process.stderr.write('log: server starting\\n');
if (process.env.STUBBORN) {
  process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\\n'));
  const { spawn } = await import('node:child_process');
  spawn('sleep', ['30'], { stdio: 'ignore' });
  setInterval(() => {}, 1000);
}
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (process.env.CRASH) {
    process.stderr.write('boom: the database is on fire\\n');
    process.exit(3);
  }
  if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echo: m.params ?? null } }) + '\\n');
});
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wirecheck-child-'));
  writeFileSync(join(dir, 'server.mjs'), SERVER);
});

afterEach(async () => {
  for (const t of started.splice(0)) {
    await t.close();
    const pid = t.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function transport(env: Record<string, string> = {}, options: { killGraceMs?: number } = {}) {
  const t = new ChildProcessTransport(`node ${join(dir, 'server.mjs')}`, {
    env: { ...process.env, ...env },
    ...options,
  });
  started.push(t);
  const messages: unknown[] = [];
  const errors: TransportError[] = [];
  let closed = 0;
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e);
  t.onclose = () => closed++;
  return { t, messages, errors, closed: () => closed };
}

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Live (non-zombie) members of a process group, from /proc (FACTS: zombies linger ~2 s). */
function liveMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') live.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return live;
}

describe('child-process transport (spec "Tool server, stdio transport")', () => {
  test('messages go over the server stdin and come back from its stdout; stderr is kept apart', async () => {
    const c = transport();
    await c.t.start();
    await c.t.send({ jsonrpc: '2.0', id: 1, method: 'x', params: { a: 1 } });
    await until(() => c.messages.length === 1, 'the reply');
    expect(c.messages[0]).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: { a: 1 } } });
    await until(() => c.t.stderrTail.includes('server starting'), 'stderr');
    expect(c.errors).toEqual([]);
  });

  test('non-JSON text on stdout ends the connection at once with an error naming the line, and stops the server', async () => {
    const c = transport({ BANNER: 'Weather server running on stdio' });
    await c.t.start();
    await until(() => c.closed() === 1, 'onclose');
    expect(c.errors).toHaveLength(1);
    expect(c.errors[0]?.kind).toBe('parse');
    expect(c.errors[0]?.fatal).toBe(true);
    expect(c.errors[0]?.message).toContain('line 1 is not JSON');
    expect(c.errors[0]?.message).toContain('Weather server running on stdio');
    await expect(c.t.send({ jsonrpc: '2.0', id: 1, method: 'x' })).rejects.toBeInstanceOf(
      TransportClosedError,
    );
    expect(liveMembers(c.t.pid as number)).toEqual([]);
  });

  test('a server that exits on its own is reported with its exit code and the end of its stderr', async () => {
    const c = transport({ CRASH: '1' });
    await c.t.start();
    await c.t.send({ jsonrpc: '2.0', id: 1, method: 'x' });
    await until(() => c.closed() === 1, 'onclose');
    expect(c.errors).toHaveLength(1);
    expect(c.errors[0]).toMatchObject({ kind: 'connection', fatal: true });
    expect(c.errors[0]?.message).toContain('exited with code 3');
    expect(c.errors[0]?.message).toContain('boom: the database is on fire');
  });

  test('a command that cannot run is reported like any exit, with what sh said', async () => {
    const t = new ChildProcessTransport('/nonexistent/wirecheck-server');
    started.push(t);
    const errors: TransportError[] = [];
    let closed = 0;
    t.onerror = (e) => errors.push(e);
    t.onclose = () => closed++;
    await t.start();
    await until(() => closed === 1, 'onclose');
    expect(errors[0]?.message).toMatch(/exited with code 127.*not found/s);
  });

  test('close() ends stdin and the server exits without an error being reported', async () => {
    const c = transport();
    await c.t.start();
    await c.t.close();
    expect(c.closed()).toBe(1);
    expect(c.errors).toEqual([]);
    expect(liveMembers(c.t.pid as number)).toEqual([]);
  });

  test('close() kills a server that ignores stdin end and SIGTERM, and what it left in its group', async () => {
    const c = transport({ STUBBORN: '1' }, { killGraceMs: 200 });
    await c.t.start();
    await until(() => c.t.stderrTail.includes('server starting'), 'start-up');
    await until(() => liveMembers(c.t.pid as number).length >= 3, 'the grandchild');
    await c.t.close();
    expect(c.t.stderrTail).toContain('ignoring SIGTERM');
    expect(liveMembers(c.t.pid as number)).toEqual([]);
    expect(c.closed()).toBe(1);
  });
});
