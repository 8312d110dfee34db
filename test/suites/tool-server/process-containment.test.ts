import { expect, test } from 'vitest';
import { describeExit, spawnServer } from '../../../src/suites/tool-server/process.js';
import { liveNow, waitForLive } from '../../harness/process-helpers.js';

function uniqueArg(): string {
  return `35${Math.floor(Math.random() * 1e7)}.25`;
}

test('a stdio server that starts a setsid escapee: kill() ends both and reports the escapee', async () => {
  const arg = uniqueArg();
  const server = spawnServer(`setsid sleep ${arg} & exec cat`);
  await waitForLive(arg);
  await new Promise((r) => setTimeout(r, 100));
  await server.kill();
  expect(server.survivors().map((s) => s.command)).toEqual([`sleep ${arg}`]);
  expect(liveNow(arg)).toEqual([]);
});

test('a server that daemonized (double fork) and exited: kill() finds and ends the daemon', async () => {
  const arg = uniqueArg();
  const server = spawnServer(
    `(setsid sh -c 'sleep ${arg} & exit 0' </dev/null >/dev/null 2>&1 &); sleep 0.2`,
  );
  await server.exited;
  await server.kill();
  expect(server.survivors().map((s) => s.command)).toEqual([`sleep ${arg}`]);
  expect(liveNow(arg)).toEqual([]);
});

test('a server that leaves nothing behind has no survivors', async () => {
  const server = spawnServer('exec cat');
  await server.kill();
  expect(server.survivors()).toEqual([]);
});

test('the exit description keeps the first line of a long stderr', async () => {
  const server = spawnServer(
    `echo "Error: Cannot find module '/nonexistent.js'" >&2; head -c 20000 /dev/zero | tr '\\0' z >&2; exit 1`,
  );
  await server.exited;
  await new Promise((r) => setTimeout(r, 50));
  const text = describeExit(server);
  await server.kill();
  expect(text).toContain('exited with code 1');
  expect(text).toContain("Error: Cannot find module '/nonexistent.js'");
});
