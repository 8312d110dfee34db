import { randomBytes } from 'node:crypto';
import { expect, onTestFinished, test } from 'vitest';
import { killPid } from '../../../src/harness/containment/procfs.js';
import { liveNow, stillAlive } from '../../harness/process-helpers.js';
import { quickSuite, runAgainst, serverScript, stdioTarget } from './helpers.js';

// A stdio server that exits on the end of its input, as MCP 2024-11-05 shuts one down, and leaves a
// process in its own process group: no real client signals that group, so the process outlives the
// server for the user. tool-server.processes.none-left ends its session that way and warns on it.

const ID = 'tool-server.processes.none-left';

/** A `sleep` argument of this test's own: other runs on the machine leave sleeps of theirs. */
function marker(): string {
  return `4${randomBytes(2).readUInt16BE(0) % 100}.${randomBytes(4).readUInt32BE(0)}`;
}

test('a server that exits on end of input leaving a sleep in its own group warns, naming the sleep', async () => {
  const arg = marker();
  // Whatever happens to the assertions, no sleep of this test outlives it.
  onTestFinished(() => {
    for (const pid of liveNow(arg)) killPid(pid);
  });
  const target = stdioTarget(`${serverScript('leave-group-sleep')} --transport stdio --sleep ${arg}`, 'all');
  const result = await runAgainst(target, { only: [ID, 'tool-server.stdio.exit-on-eof'] }, quickSuite);
  const exit = result.checks.find((c) => c.id === 'tool-server.stdio.exit-on-eof');
  expect(exit?.status, exit?.message).toBe('pass');
  const check = result.checks.find((c) => c.id === ID);
  expect(check?.status, check?.message).toBe('warn');
  expect(check?.message).toContain('leave-group-sleep.mjs');
  expect(check?.message).toContain('the session leftovers');
  expect(check?.message).toContain(`sleep ${arg}`);
  expect(check?.actual).toMatch(
    new RegExp(`the session leftovers: pid \\d+: sleep ${arg.replace('.', '\\.')}`),
  );
  // Reported, then killed by the containment: the check leaves nothing behind either.
  const named = [...(check?.actual ?? '').matchAll(/pid (\d+):/g)].map((m) => Number(m[1]));
  expect(named.length).toBeGreaterThan(0);
  expect(stillAlive(named)).toEqual([]);
  expect(liveNow(arg)).toEqual([]);
}, 60_000);

test('a server whose helper in its own group ends itself just after the server passes', async () => {
  const target = stdioTarget(`${serverScript('group-helper-follows')} --transport stdio`, 'all');
  const result = await runAgainst(target, { only: [ID, 'tool-server.stdio.exit-on-eof'] }, quickSuite);
  const check = result.checks.find((c) => c.id === ID);
  expect(check?.status, check?.message).toBe('pass');
}, 60_000);
