import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ToolClient } from '../../src/clients/tools/index.js';
import { readFixtureFile, type ToolSession, validateFixture } from '../../src/fixtures/index.js';
import { startStreamableHttpMockToolServer } from '../../src/mocks/tools/index.js';
import { startToolServer } from '../../src/servers/tools/index.js';
import { SseClientTransport, StreamableHttpClientTransport } from '../../src/transports/index.js';

const BIN = resolve(import.meta.dirname, '../../bin/wirecheck.js');
const TOKEN = 'tok-kill-e2e-SECRET-5f0c2a9d';
const ENV_KEY = 'sk-env-kill-e2e-SECRET-77aa11';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** `wirecheck record tools --sse|--http URL --out DIR` as a real process; resolves with its URL. */
async function startRecorder(flag: '--sse' | '--http', upstream: string, out: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'record', 'tools', flag, upstream, '--out', out],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ANTHROPIC_API_KEY: ENV_KEY },
    },
  );
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no URL within 15 s: ${stderr}`)), 15_000);
    child.stdout!.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (stdout.includes('\n')) {
        clearTimeout(timer);
        ok(stdout.split('\n')[0]!);
      }
    });
  });
  return { child, url, exited, stderr: () => stderr };
}

/** A session left open: initialize, a tool call that echoes the token back, a listing. */
async function openSession(transport: 'sse' | 'http', url: string): Promise<ToolClient> {
  const headers = { authorization: `Bearer ${TOKEN}` };
  const client = new ToolClient(
    transport === 'sse'
      ? new SseClientTransport(url, { headers })
      : new StreamableHttpClientTransport(url, { headers }),
  );
  cleanup.push(() => client.close().catch(() => {}));
  await client.connect();
  const echoed = await client.callTool('echo', { text: `the token ${TOKEN} and the key ${ENV_KEY}` });
  expect(JSON.stringify(echoed)).toContain(TOKEN);
  await client.listTools();
  return client;
}

async function upstreamOf(transport: 'sse' | 'http'): Promise<string> {
  const server =
    transport === 'sse'
      ? await startToolServer({ keepAliveMs: 0 })
      : await startStreamableHttpMockToolServer();
  cleanup.push(() => server.close());
  return server.url;
}

/** A recorder process in front of a fresh server, with a session open through it. */
async function recordOpenSession(transport: 'sse' | 'http', prefix: string) {
  const out = await mkdtemp(join(tmpdir(), prefix));
  cleanup.push(() => rm(out, { recursive: true, force: true }));
  const flag = transport === 'sse' ? '--sse' : '--http';
  const recorder = await startRecorder(flag, await upstreamOf(transport), out);
  await openSession(transport, recorder.url);
  return { out, recorder };
}

function methodsOf(session: ToolSession): string[] {
  return session.messages
    .filter((m) => m.direction === 'client->server')
    .map((m) => (JSON.parse(m.text) as { method?: string }).method ?? '(answer)');
}

describe('record tools journals each session as it happens: a recorder killed mid-session keeps what it recorded', () => {
  for (const transport of ['sse', 'http'] as const) {
    test(`${transport}: SIGTERM to the recorder's pid mid-session writes the session so far as <name>.json, secrets redacted`, async () => {
      const { out, recorder } = await recordOpenSession(transport, 'wirecheck-kill-term-');
      process.kill(recorder.child.pid!, 'SIGTERM');
      const exit = await recorder.exited;
      expect(exit.code, recorder.stderr()).toBe(0);
      const files = await readdir(out);
      expect(files.filter((f) => f.endsWith('.partial'))).toEqual([]);
      expect(files.filter((f) => f.endsWith('.json'))).toHaveLength(1);
      const file = join(out, files.find((f) => f.endsWith('.json'))!);
      const text = await readFile(file, 'utf8');
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(ENV_KEY);
      const session = (await readFixtureFile(file)) as ToolSession;
      expect(methodsOf(session)).toEqual(
        expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call', 'tools/list']),
      );
      expect(
        session.messages.some(
          (m) => m.direction === 'server->client' && m.text.includes('the token [redacted'),
        ),
      ).toBe(true);
      expect(validateFixture(session).ok).toBe(true);
      expect(recorder.stderr()).toMatch(/recorded (sse|http) session, \d+ message\(s\)/);
    }, 60_000);

    test(`${transport}: SIGKILL to the recorder's pid mid-session leaves the journal, read back as the session so far`, async () => {
      const { out, recorder } = await recordOpenSession(transport, 'wirecheck-kill-9-');
      // The journal's lines leave the process as they are written; give the last one a moment.
      await new Promise((r) => setTimeout(r, 200));
      process.kill(recorder.child.pid!, 'SIGKILL');
      expect((await recorder.exited).signal).toBe('SIGKILL');
      const files = await readdir(out);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.json\.partial$/);
      const file = join(out, files[0]!);
      const text = await readFile(file, 'utf8');
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(ENV_KEY);
      const session = (await readFixtureFile(file)) as ToolSession;
      expect(session.transport).toBe(transport);
      expect(methodsOf(session)).toEqual(
        expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call', 'tools/list']),
      );
      const answers = session.messages.filter((m) => m.direction === 'server->client');
      expect(answers.length).toBeGreaterThanOrEqual(3);
      if (transport === 'sse') {
        expect(session.stream?.end).toBe('truncated');
        expect(session.stream?.chunks.length).toBeGreaterThan(0);
        expect(session.stream?.requestHeaders.authorization).toBe('Bearer [redacted]');
      }
      // Every POST of a session so far has its answer.
      for (const m of session.messages.filter((m) => m.direction === 'client->server'))
        expect(m.post?.status, m.text).toBeGreaterThanOrEqual(200);
      expect(validateFixture(session)).toMatchObject({ ok: true });
    }, 60_000);
  }

  test("stdio: SIGKILL to the recorder's pid mid-session leaves the journal of every line so far, the environment's key scrubbed", async () => {
    const out = await mkdtemp(join(tmpdir(), 'wirecheck-kill-stdio-'));
    cleanup.push(() => rm(out, { recursive: true, force: true }));
    const server = `${process.execPath} ${BIN} serve tools --transport stdio`;
    const child = spawn(process.execPath, [BIN, 'record', 'tools', '--stdio', server, '--out', out], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ANTHROPIC_API_KEY: ENV_KEY },
    });
    cleanup.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const exited = new Promise<string | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    let stdout = '';
    const answered = (id: number) =>
      new Promise<void>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`no answer to ${id} within 15 s: ${stdout}`)), 15_000);
        const look = () => {
          if (stdout.includes(`"id":${id},`)) {
            clearTimeout(timer);
            child.stdout.off('data', look);
            ok();
          }
        };
        child.stdout.on('data', look);
        look();
      });
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'kill-test', version: '1' },
      },
    });
    await answered(0);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: `key ${ENV_KEY}` } },
    });
    await answered(1);
    await new Promise((r) => setTimeout(r, 200));
    process.kill(child.pid!, 'SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const files = await readdir(out);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-stdio-\d+-\d+\.json\.partial$/);
    const text = await readFile(join(out, files[0]!), 'utf8');
    expect(text).not.toContain(ENV_KEY);
    const session = (await readFixtureFile(join(out, files[0]!))) as ToolSession;
    expect(session.exit).toBeUndefined();
    expect(methodsOf(session)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    expect(session.messages.filter((m) => m.direction === 'server->client')).toHaveLength(2);
    expect(validateFixture(session)).toMatchObject({ ok: true });
  }, 60_000);
});
