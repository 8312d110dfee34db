import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import type * as Containment from '../../../src/harness/containment/index.js';
import {
  ContainmentUnavailable,
  containmentInfo,
  withSpawner,
} from '../../../src/harness/containment/index.js';
import { runCommand } from '../../../src/harness/run-command.js';
import { toolUse } from '../../../src/suites/runner/lines.js';
import { cannotStart } from '../../../src/suites/runner/preflight.js';
import { runSession, type SessionSpec } from '../../../src/suites/runner/session.js';
import { errnoError, harnessBugFrom, neverStarted } from '../../harness/start-failure-helpers.js';

/** What the next start does instead of starting the runner: throw, or hand back a target. */
const next = vi.hoisted(() => ({ start: undefined as undefined | (() => Containment.ContainedTarget) }));

vi.mock('../../../src/harness/containment/index.js', async (importActual) => {
  const actual = await importActual<typeof Containment>();
  return {
    ...actual,
    startContained: async (command: string, options: Containment.ContainedSpawnOptions) => {
      const start = next.start;
      next.start = undefined;
      return start === undefined ? actual.startContained(command, options) : start();
    },
  };
});

const root = mkdtempSync(join(tmpdir(), 'wirecheck-session-start-errors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let sessions = 0;
const env = () => ({
  baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  workdir: join(root, `wd-${++sessions}`),
});
const line = toolUse('echo ok', { id: 'toolu_start' });
const spec: SessionSpec = { lines: [line], timeoutS: 5, budgetMs: 10_000 };
const answer = JSON.stringify({
  type: 'tool_result',
  tool_use_id: line.id,
  content: 'ok\n',
  is_error: false,
});

test('a runner whose spawner is lost while it runs is not one that could not start: its answer still counts', async (ctx) => {
  if (containmentInfo().method === 'pid-namespace') ctx.skip(); // such targets are started without the spawner
  await withSpawner(async () => {
    const spawner = Number((await runCommand('echo $PPID', { env: {}, timeoutMs: 5000 })).stdout.trim());
    expect(spawner).not.toBe(process.pid);
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const session = runSession(`read line; sleep 0.5; printf '%s\\n' '${answer}'`, spec, {
      ...env(),
      onStart: () => started(),
    });
    await running;
    process.kill(spawner, 'SIGKILL');
    const run = await session;
    expect(run.spawnError).toBeUndefined();
    expect(cannotStart(run)).toBeUndefined();
    expect(run.outputs.map((o) => o.text)).toEqual([answer]);
  });
}, 20_000);

describe('an error of the harness while starting the runner is a HarnessBug (exit 2), not blamed on the runner', () => {
  test('a bug in the containment', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'enclosures')");
    next.start = () => {
      throw bug;
    };
    await expect(runSession('true', spec, env())).rejects.toSatisfy(harnessBugFrom(bug));
  });

  test('the harness out of descriptors, reported by the spawn', async () => {
    const shortage = errnoError('EMFILE', 'spawn sh');
    next.start = () => neverStarted(shortage);
    await expect(runSession('true', spec, env())).rejects.toSatisfy(harnessBugFrom(shortage));
  });
});

test('spawn refusing the runner, or no containment that works, is still a runner that could not start', async () => {
  const refused = errnoError('EACCES', 'spawn sh');
  next.start = () => neverStarted(refused);
  const run = await runSession('true', spec, env());
  expect(run.spawnError).toBe(refused);
  expect(cannotStart(run)).toBe('could not be started: spawn sh EACCES');
  const unavailable = new ContainmentUnavailable(
    'WIRECHECK_CONTAINMENT=cgroup, but it does not work here: no cgroup',
  );
  next.start = () => {
    throw unavailable;
  };
  expect(cannotStart(await runSession('true', spec, env()))).toBe(
    `could not be started: ${unavailable.message}`,
  );
});

test('a runner command that does not exist is still one that cannot start (sh exit 127)', async () => {
  const run = await runSession('wirecheck-no-such-command-4711', spec, env());
  expect(run.spawnError).toBeUndefined();
  expect(cannotStart(run)).toMatch(/^could not be started by sh -c \(exit 127/);
});
