import { describe, expect, test, vi } from 'vitest';
import type * as Containment from '../../src/harness/containment/index.js';
import { ContainmentUnavailable, withSpawner } from '../../src/harness/containment/index.js';
import { isCommandStartError, runCommand } from '../../src/harness/run-command.js';
import { errnoError, harnessBugFrom, neverStarted } from './start-failure-helpers.js';
import { TOY_CHECK, toySuite } from './toy-suite.js';

/** What the next start does instead of starting the command: throw, or hand back a target. */
const next = vi.hoisted(() => ({ start: undefined as undefined | (() => Containment.ContainedTarget) }));

vi.mock('../../src/harness/containment/index.js', async (importActual) => {
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

const env = { PATH: process.env.PATH };

test("spawn's refusals of the command as given are the command's; the harness's own failures are not", () => {
  for (const e of [
    errnoError('ENOENT', 'spawn sh'),
    errnoError('EACCES', 'spawn /etc/passwd'),
    errnoError('ENOTDIR', 'spawn sh'),
    errnoError('E2BIG', 'spawn'),
    Object.assign(
      new TypeError("The argument 'args[1]' must be a string without null bytes. Received 'a\\x00b'"),
      {
        code: 'ERR_INVALID_ARG_VALUE',
      },
    ),
  ]) {
    expect(isCommandStartError(e), e.message).toBe(true);
  }
  for (const e of [
    errnoError('EMFILE', 'spawn sh'),
    errnoError('EAGAIN', 'spawn'),
    errnoError('ENOMEM', 'spawn'),
    errnoError('EMFILE', 'mkdir'),
    errnoError('ENOENT', 'open'),
    Object.assign(new TypeError("The argument 'file' cannot be empty. Received ''"), {
      code: 'ERR_INVALID_ARG_VALUE',
    }),
    new TypeError("Cannot read properties of undefined (reading 'file')"),
    new ContainmentUnavailable('no containment method works here'),
    new Error('the spawner sent the pipes of process 7 out of order'),
    'ENOENT',
  ]) {
    expect(isCommandStartError(e), String(e)).toBe(false);
  }
});

describe('an error of the harness while starting the command is a HarnessBug (exit 2), not blamed on the command', () => {
  test('a bug in the containment', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'enclosures')");
    next.start = () => {
      throw bug;
    };
    await expect(runCommand('true', { env, timeoutMs: 5000 })).rejects.toSatisfy(harnessBugFrom(bug));
  });

  test('the harness out of descriptors, before the spawn', async () => {
    const shortage = errnoError('EMFILE', 'mkdir');
    next.start = () => {
      throw shortage;
    };
    await expect(runCommand('true', { env, timeoutMs: 5000 })).rejects.toSatisfy(harnessBugFrom(shortage));
  });

  test('the harness out of descriptors, reported by the spawn', async () => {
    const shortage = errnoError('EMFILE', 'spawn sh');
    next.start = () => neverStarted(shortage);
    await expect(runCommand('true', { env, timeoutMs: 5000 })).rejects.toSatisfy(harnessBugFrom(shortage));
  });
});

test('spawn refusing the command is still a command that could not start', async () => {
  const refused = errnoError('EACCES', 'spawn sh');
  next.start = () => neverStarted(refused);
  const run = await runCommand('true', { env, timeoutMs: 5000 });
  expect(run.spawnError).toBe(refused);
  expect(run.exitCode).toBeNull();
});

test('no containment that works stays a command that could not start, the cause named', async () => {
  const unavailable = new ContainmentUnavailable(
    'WIRECHECK_CONTAINMENT=cgroup, but it does not work here: no cgroup',
  );
  next.start = () => {
    throw unavailable;
  };
  expect((await runCommand('true', { env, timeoutMs: 5000 })).spawnError).toBe(unavailable);
});

describe.each([
  ['started by the harness', <T>(fn: () => Promise<T>) => fn()],
  ['started through the spawner', withSpawner],
])('%s, for real', (_, within) => {
  test('a missing working directory or a NUL byte cannot start; a missing program is sh exit 127', () =>
    within(async () => {
      const noDir = await runCommand('true', { env, timeoutMs: 5000, cwd: '/nonexistent/wirecheck-dir' });
      expect(noDir.spawnError).toMatchObject({ code: 'ENOENT' });
      const nul = await runCommand('echo a\0b', { env, timeoutMs: 5000 });
      expect(nul.spawnError).toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
      const missing = await runCommand('wirecheck-no-such-command-4711', { env, timeoutMs: 5000 });
      expect(missing.spawnError).toBeUndefined();
      expect(missing.exitCode).toBe(127);
    }));
});

test("a check meeting wirecheck's own shortage stops the suite as a harness error and fails nothing", async () => {
  const { runSuite } = await import('../../src/harness/run-suite.js');
  const shortage = errnoError('EMFILE', 'spawn sh');
  const result = await runSuite(
    toySuite({
      ...TOY_CHECK,
      id: 'toy.starts',
      run: async () => {
        next.start = () => neverStarted(shortage);
        await runCommand('true', { env, timeoutMs: 5000 });
      },
    }),
    {},
    { seed: 1 },
  );
  expect(result.stopped?.kind).toBe('harness-error');
  expect(result.stopped?.message).toContain('wirecheck could not start a target command');
  expect(result.summary.failed).toBe(0);
});
