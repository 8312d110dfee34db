import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readFixtureFile, type ToolSession, validateFixture } from '../../src/fixtures/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** The built CLI, writing its peak RSS (KiB) to $WIRECHECK_MAXRSS_FILE when it ends. */
const MEASURE = join(ROOT, 'test/hostile/measure.mjs');
const SERVER = join(ROOT, 'test/recording/long-line-server.mjs');
const LINE_MIB = 256;
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-long-line-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('record tools --stdio: a server line of 256 MiB, to a client that reads nothing for 3 s, is relayed whole and recorded by its first 16 MiB, marked cut; peak RSS under 400 MiB (2 GB before: the line held whole, the relay queued unread)', async () => {
  const out = join(dir, 'out');
  const rssFile = join(dir, 'maxrss');
  const child = spawn(
    process.execPath,
    [MEASURE, 'record', 'tools', '--stdio', `${q(process.execPath)} ${q(SERVER)}`, '--out', out],
    {
      cwd: ROOT,
      env: { ...process.env, WIRECHECK_MAXRSS_FILE: rssFile, LONG_LINE_MIB: String(LINE_MIB) },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let relayed = 0;
  let tail = '';
  let stderr = '';
  // The client is busy: what the recorder relays meanwhile waits in the pipe, not in its memory.
  child.stdout.pause();
  setTimeout(() => child.stdout.resume(), 3_000);
  child.stdout.on('data', (b: Buffer) => {
    relayed += b.length;
    tail = (tail + b.toString('latin1')).slice(-200);
  });
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  child.stdin.end('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(timer);

  expect(code, stderr).toBe(0);
  expect(relayed).toBeGreaterThan(LINE_MIB * 1024 * 1024);
  expect(tail).toMatch(/"\}\}\n\{"jsonrpc":"2.0","method":"notifications\/after"\}\n$/);
  expect(stderr).toMatch(/3 message\(s\) \(1 longer than 16777216 bytes, recorded cut: only their start\)/);
  const maxRssMiB = Number(await readFile(rssFile, 'utf8')) / 1024;
  expect(maxRssMiB).toBeLessThan(400);

  const [file] = await readdir(out);
  const session = (await readFixtureFile(join(out, file!))) as ToolSession;
  const cut = session.messages[1]!;
  expect(cut).toMatchObject({ direction: 'server->client', cut: true });
  expect(cut.text.length).toBe(16 * 1024 * 1024);
  expect(cut.text.startsWith('{"jsonrpc":"2.0","id":0,"result":{"text":"xxx')).toBe(true);
  expect(session.messages[2]).toMatchObject({ text: '{"jsonrpc":"2.0","method":"notifications/after"}' });
  expect(session.messages[2]!.cut).toBeUndefined();
  const validation = validateFixture(session);
  expect(validation).toMatchObject({ ok: true });
  expect(validation.recorded.join('\n')).toMatch(
    /message 1 \(server->client\) was longer than the recorder keeps/,
  );
}, 90_000);

test('record tools --stdio stopped (SIGTERM) while its client reads nothing: it writes the session and exits 0 (it waited for a reader that never came)', async () => {
  const out = join(dir, 'stopped');
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/wirecheck.js'),
      'record',
      'tools',
      '--stdio',
      `${q(process.execPath)} ${q(SERVER)}`,
      '--out',
      out,
    ],
    { cwd: ROOT, env: { ...process.env, LONG_LINE_MIB: '1024' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  // The client never reads what the server sends through the recorder.
  child.stdout.pause();
  child.stdin.write('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n');
  // Stopped once the server's answer is on its way: bytes relayed, unread, held by this side.
  for (let i = 0; i < 300 && child.stdout.readableLength === 0; i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(child.stdout.readableLength).toBeGreaterThan(0);
  await new Promise((r) => setTimeout(r, 200));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) =>
    child.on('close', (c, s) => r([c, s])),
  );
  clearTimeout(killer);
  expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
  expect(stderr).toMatch(/recorded stdio session, 2 message\(s\)/);
  const [file] = await readdir(out);
  const session = (await readFixtureFile(join(out, file!))) as ToolSession;
  expect(session.messages.map((m) => m.direction)).toEqual(['client->server', 'server->client']);
}, 30_000);

test('record tools --stdio relays the server’s bytes exactly, invalid UTF-8 included (it relayed U+FFFD for each bad byte)', async () => {
  const out = join(dir, 'bytes');
  // Through `sh -c`: answer the first line with a reply whose string holds the bytes FF FE.
  const server = `read line; printf '{"jsonrpc":"2.0","id":0,"result":{"x":"\\377\\376"}}\\n'`;
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/wirecheck.js'), 'record', 'tools', '--stdio', server, '--out', out],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const chunks: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => chunks.push(b));
  child.stdin.end('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n');
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(killer);
  expect(code).toBe(0);
  const expected = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":0,"result":{"x":"'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}}\n'),
  ]);
  expect(Buffer.concat(chunks).toString('hex')).toBe(expected.toString('hex'));
}, 30_000);
