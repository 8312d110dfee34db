import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { WIRECHECK_BIN } from '../../src/package-root.js';
import { referenceToolClientCommand, TOOL_TRANSPORTS } from '../../src/suites/tool-client/index.js';
import { ensureBuilt, notPassed, runAgainst, statusById } from '../suites/messages-client/helpers.js';
import * as toolClient from '../suites/tool-client/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');

let dirs: string[] = [];
let servers: ChildProcessWithoutNullStreams[] = [];
beforeAll(ensureBuilt);
afterEach(async () => {
  for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
  servers = [];
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs = [];
});

function serveWarm(args: string[]) {
  const child = spawn(process.execPath, [WIRECHECK_BIN, 'serve', 'warm', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  });
  servers.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const firstLine = new Promise<string>((done, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line within 15 s; stderr: ${stderr}`)), 15_000);
    const look = () => {
      if (!stdout.includes('\n')) return;
      clearTimeout(timer);
      done(stdout.split('\n')[0]!);
    };
    child.stdout.on('data', look);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited before a line; stderr: ${stderr}`));
    });
  });
  // A usage error never prints a line: only the test that awaits it judges it.
  firstLine.catch(() => {});
  return { child, firstLine, exited, stderr: () => stderr };
}

test('the reference messages client served warm passes the suite with the verdicts of its cold start, through the relay it prints', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wc-warm-e2e-'));
  dirs.push(dir);
  const socket = join(dir, 'client.sock');
  const server = serveWarm(['messages-client', '--socket', socket]);
  const command = await server.firstLine;
  expect(command).toMatch(/^perl \S+\/bin\/warm-relay\.pl \S+\/client\.sock$/);
  const [warm, cold] = await Promise.all([
    runAgainst(command),
    runAgainst(`${process.execPath} ${WIRECHECK_BIN} messages-client`),
  ]);
  expect(notPassed(warm)).toEqual([]);
  expect(statusById(warm)).toEqual(statusById(cold));
  // Each case's process was the relay, not a Node.js start.
  expect(warm.targetStarts?.count).toBeGreaterThan(0);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  await expect(stat(socket)).rejects.toMatchObject({ code: 'ENOENT' });
}, 180_000);

test('the reference tool client served warm passes the suite over every transport with the verdicts of its cold start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wc-warm-e2e-'));
  dirs.push(dir);
  const server = serveWarm(['tool-client', '--socket', join(dir, 'tools.sock')]);
  const command = await server.firstLine;
  const [warm, cold] = await Promise.all([
    toolClient.runAgainst(command, {}, TOOL_TRANSPORTS),
    toolClient.runAgainst(referenceToolClientCommand(), {}, TOOL_TRANSPORTS),
  ]);
  expect(toolClient.notPassed(warm)).toEqual([]);
  expect(toolClient.statusById(warm)).toEqual(toolClient.statusById(cold));
  expect(warm.checks.length).toBeGreaterThan(60);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}, 300_000);

test.each([
  [
    ['agent', '--socket', '/tmp/wc-x.sock'],
    /the target to keep warm is one of: messages-client, tool-client/,
  ],
  [['messages-client'], /--socket is required/],
  [['messages-client', '--socket', `/tmp/${'d'.repeat(120)}.sock`], /at most 107 bytes/],
])('serve warm %j is a usage error (exit 2)', async (args, message) => {
  const server = serveWarm(args);
  expect(await server.exited).toBe(2);
  expect(server.stderr()).toMatch(message);
});

test('serve warm on a path that holds a file leaves the file and exits 2 (WC_SERVE_FAILED)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wc-warm-e2e-'));
  dirs.push(dir);
  const path = join(dir, 'notes.txt');
  await writeFile(path, 'keep me');
  const server = serveWarm(['messages-client', '--socket', path]);
  expect(await server.exited).toBe(2);
  expect(server.stderr()).toContain(
    `WC_SERVE_FAILED: warm messages-client: cannot listen on ${path}: ${path} exists and is not a socket`,
  );
  expect(await readFile(path, 'utf8')).toBe('keep me');
});
