import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { MINIMAL_PATH, type SpawnSpec } from '../../src/runner/index.js';
import { spawnCommand } from '../../src/runner/spawn-command.js';
import { findTools } from '../../src/runner/tools.js';
import { prepareWorkdir, WorkdirError } from '../../src/runner/workdir.js';
import { escapeThenReport, isRoot, liveProcessesWith, survivorsAfter, tempBase } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

const request = (spec: SpawnSpec, script = '') => ({
  spec,
  script,
  timeoutMs: 10_000,
  graceMs: 2000,
  drainMs: 500,
});

describe('spawning', () => {
  test('a program that does not exist is a spawn failure, not a crash', async () => {
    const spec: SpawnSpec = {
      file: '/nonexistent/bash',
      args: [],
      cwd: '/',
      env: {},
      runAs: null,
      extraFds: [],
    };
    const outcome = await spawnCommand(request(spec));
    expect(outcome.kind).toBe('spawn-failed');
    expect(outcome.kind === 'spawn-failed' && outcome.reason).toMatch(/ENOENT/);
  });

  test('a sandbox that fails before it starts (no pid on its info fd) is a spawn failure with its reason', async () => {
    const tools = await findTools();
    const spec: SpawnSpec = {
      file: tools.bash,
      args: ['--norc', '--noprofile', '-c', 'echo "bwrap: cannot create a namespace" >&2; exit 1'],
      cwd: '/',
      env: { PATH: MINIMAL_PATH },
      runAs: null,
      extraFds: ['script-in', 'info-out'],
    };
    const outcome = await spawnCommand(request(spec, 'echo hi'));
    expect(outcome).toMatchObject({ kind: 'spawn-failed', reason: 'bwrap: cannot create a namespace' });
  });

  test('a process that escaped the group and holds stdout delays the result by the drain window only', async () => {
    const tools = await findTools();
    const needle = '295.125';
    const base = await tempBase(cleanup);
    const spec: SpawnSpec = {
      file: tools.bash,
      args: ['--norc', '--noprofile', '-c', `${escapeThenReport(needle)}; echo started`],
      cwd: base,
      env: { PATH: MINIMAL_PATH },
      runAs: null,
      extraFds: [],
    };
    try {
      const outcome = await spawnCommand(request(spec));
      expect(outcome.kind === 'exited' && outcome.exitCode).toBe(0);
      expect(outcome.kind === 'exited' && Buffer.from(outcome.stdout.head).toString()).toBe('started\n');
      // The pipe stayed open: the result waited for the drain window, then went on.
      expect(outcome.durationMs).toBeGreaterThanOrEqual(500);
    } finally {
      for (const pid of await liveProcessesWith(needle)) process.kill(pid, 'SIGKILL');
      expect(await survivorsAfter(needle)).toEqual([]);
    }
  });
});

describe('preparing the working directory', () => {
  test('missing directories are created, parents included', async () => {
    const dir = join(await tempBase(cleanup), 'a', 'b');
    await prepareWorkdir(dir, null);
    await expect(prepareWorkdir(dir, null)).resolves.toBeUndefined();
  });

  test('a symbolic link is refused (as root it would be given away)', async () => {
    const base = await tempBase(cleanup);
    await mkdir(join(base, 'real'));
    await symlink(join(base, 'real'), join(base, 'link'));
    await expect(prepareWorkdir(join(base, 'link'), null)).rejects.toThrow(WorkdirError);
  });

  if (isRoot) {
    test('as root, the directory goes to the unprivileged uid, and a parent it cannot pass is an error', async () => {
      const base = await tempBase(cleanup);
      const id = { uid: 65534, gid: 65534 };
      const reachable = join(base, 'wd');
      await prepareWorkdir(reachable, id);
      const { stat, chmod } = await import('node:fs/promises');
      expect((await stat(reachable)).uid).toBe(65534);
      const closed = join(base, 'closed');
      await mkdir(closed, { mode: 0o700 });
      await chmod(closed, 0o700);
      await expect(prepareWorkdir(join(closed, 'wd'), id)).rejects.toThrow(/out of reach of uid 65534/);
    });
  }
});
