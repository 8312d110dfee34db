import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { serveToolsOverStdio } from '../../../src/servers/tools/index.js';
import { eventually, INITIALIZE_PARAMS } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

interface Spawned {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  send(line: string): void;
  lines(): string[];
}

function spawnServer(args: string[], env: Record<string, string> = {}): Spawned {
  const child = spawn(process.execPath, ['bin/wirecheck.js', 'serve', 'tools', ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, MCP_TRANSPORT: '', MCP_HOST: '', MCP_PORT: '', ...env },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    send: (line) => child.stdin?.write(`${line}\n`),
    lines: () => out.split('\n').filter((l) => l !== ''),
  };
}

async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A server's stdin and stdout in process, and everything written to the stdout so far. */
function pipes() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return { input, output, written: () => text };
}

describe('stdio transport, in process (spec "Tool server, stdio transport")', () => {
  test('a line that is not JSON is answered -32700 and the server goes on', async () => {
    const { input, output, written } = pipes();
    const logs: string[] = [];
    const server = await serveToolsOverStdio({ input, output, log: (l) => logs.push(l) });
    input.write('this is not json\n');
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    await eventually(() => written().split('\n').length >= 3);
    const [first, second] = written()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(first).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(second).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(logs.some((l) => l.includes('not JSON'))).toBe(true);
    input.end();
    await server.closed;
    expect(server.session.closed).toBe(true);
  });

  // JSON-RPC: -32700 is for invalid JSON; a client may close stdin right after its last message.
  test('a last message the input ends without a newline after is answered, not refused as a parse error', async () => {
    const { input, output, written } = pipes();
    const server = await serveToolsOverStdio({ input, output, log: () => {} });
    input.end(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }));
    await server.closed;
    await eventually(() => written().includes('\n'));
    expect(
      written()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
  });

  test('the end of the input aborts in-flight calls and sends no reply for them', async () => {
    const { input, output, written } = pipes();
    const server = await serveToolsOverStdio({ input, output });
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE_PARAMS })}\n`,
    );
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { ms: 30_000 } } })}\n`,
    );
    await eventually(() => server.core.inFlightCount() === 1);
    input.end();
    await server.closed;
    expect(server.core.inFlightCount()).toBe(0);
    await new Promise((r) => setTimeout(r, 20));
    // Only the initialize result: the call in flight got no reply.
    expect(
      written()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l).id),
    ).toEqual([0]);
  });
});

describe('`wirecheck serve tools --transport stdio` (spec "Tool server, stdio transport")', () => {
  test('stdout carries JSON-RPC lines only, the banner goes to stderr, a bad line gets -32700, stdin end exits 0', async () => {
    const s = spawnServer(['--transport', 'stdio']);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS }));
    s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    s.send('{"jsonrpc": "2.0", "id": 2,');
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'diagnostic' } }));
    await withinMs(
      eventually(() => s.lines().length >= 4, 15_000),
      16_000,
    );
    s.child.stdin?.end();
    const exit = await withinMs(s.exit, 15_000);
    expect(exit).toEqual({ code: 0, signal: null });
    const messages = s.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, null, 3, 4]);
    expect(messages[1]).toMatchObject({ error: { code: -32700 } });
    expect((messages[3]?.result as { content: { text: string }[] } | undefined)?.content[0]?.text).toMatch(
      /^transport: stdio$/m,
    );
    expect(s.stderr()).toContain('reference tool server on stdio');
  });

  test('MCP_TRANSPORT=stdio selects stdio; stdin end with a call in flight exits 0 without replying to it', async () => {
    const s = spawnServer([], { MCP_TRANSPORT: 'stdio' });
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE_PARAMS }));
    s.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 30_000 } },
      }),
    );
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    await withinMs(
      eventually(() => s.lines().length >= 2, 15_000),
      16_000,
    );
    s.child.stdin?.end();
    expect(await withinMs(s.exit, 15_000)).toEqual({ code: 0, signal: null });
    expect(s.lines().map((l) => JSON.parse(l).id)).toEqual([0, 2]);
    expect(JSON.parse(s.lines()[1] ?? '')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  test('SIGTERM stops it with exit status 0 while stdin is still open', async () => {
    const s = spawnServer(['--transport', 'stdio']);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await withinMs(
      eventually(() => s.lines().length >= 1, 15_000),
      16_000,
    );
    s.child.kill('SIGTERM');
    expect(await withinMs(s.exit, 15_000)).toEqual({ code: 0, signal: null });
  });
});

describe('`wirecheck serve tools` over SSE', () => {
  test('prints the stream URL with the real port as the first stdout line, serves it, stops on SIGTERM with 0', async () => {
    // The flag beats MCP_TRANSPORT.
    const s = spawnServer(['--transport', 'sse', '--port', '0'], { MCP_TRANSPORT: 'stdio' });
    await withinMs(
      eventually(() => s.stdout().includes('\n'), 15_000),
      16_000,
    );
    const url = s.stdout().split('\n')[0] ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
    expect(url).not.toContain(':0/');
    const res = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    expect(s.stderr()).toContain('reference tool server on SSE');
    s.child.kill('SIGTERM');
    expect(await withinMs(s.exit, 15_000)).toEqual({ code: 0, signal: null });
    expect(s.lines()).toHaveLength(1);
  });

  test('MCP_PORT chooses the port when no flag is given', async () => {
    const s = spawnServer(['--transport', 'sse'], { MCP_PORT: '0', MCP_HOST: '127.0.0.1' });
    await withinMs(
      eventually(() => s.stdout().includes('\n'), 15_000),
      16_000,
    );
    expect(s.stdout()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse\n/);
    s.child.kill('SIGTERM');
    expect((await withinMs(s.exit, 15_000)).code).toBe(0);
  });
});
