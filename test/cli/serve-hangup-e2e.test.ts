import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/wirecheck.js');

let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
});

test('`serve messages` closed by SIGHUP (its terminal went away) stops as on SIGINT/SIGTERM: exit 0, not killed by the signal', async () => {
  const server = spawn(process.execPath, [BIN, 'serve', 'messages', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  });
  child = server;
  let stdout = '';
  let stderr = '';
  server.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    server.once('exit', (code, signal) => done({ code, signal })),
  );
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`no URL within 15 s; stderr: ${stderr}`)), 15_000);
    server.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('\n')) {
        clearTimeout(timer);
        ready();
      }
    });
  });
  server.kill('SIGHUP');
  expect(await exit, `stdout:\n${stdout}\nstderr:\n${stderr}`).toEqual({ code: 0, signal: null });
}, 30_000);
