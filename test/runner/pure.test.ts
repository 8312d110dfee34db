import { describe, expect, test } from 'vitest';
import { uidsOfStatus } from '../../src/runner/leftovers.js';
import { clampLimits, DEFAULT_LIMITS, parseHardLimits } from '../../src/runner/limits.js';
import { candidateLevels, outermostDirs } from '../../src/runner/probe.js';
import { exitCodeOf } from '../../src/runner/spawn-command.js';
import { searchableBy, unsafeWorkdir } from '../../src/runner/workdir.js';

const PROC_LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max file size             unlimited            unlimited            bytes
Max processes             96343                300                  processes
Max open files            20000                20000                files
`;

describe('resource limits', () => {
  test('hard limits are read from /proc/self/limits; unlimited ones are left out', () => {
    expect(parseHardLimits(PROC_LIMITS)).toEqual({ processes: 300, openFiles: 20000 });
  });
  test('a limit is lowered to the hard limit the runner has (it could not be raised)', () => {
    expect(clampLimits(DEFAULT_LIMITS, { processes: 300, openFiles: 20000 })).toEqual({
      ...DEFAULT_LIMITS,
      processes: 300,
    });
  });
});

describe('isolation candidates', () => {
  const all = { bwrap: true, unshare: true, setpriv: true, root: true };
  test('auto tries bwrap, then util-linux, and never falls back to none', () => {
    expect(candidateLevels('auto', all)).toEqual({ levels: ['bwrap', 'util-linux'], skipped: [] });
  });
  test('without root, util-linux is skipped with the reason', () => {
    const { levels, skipped } = candidateLevels('auto', { ...all, root: false });
    expect(levels).toEqual(['bwrap']);
    expect(skipped[0]).toMatch(/^util-linux: needs root/);
  });
  test('without bwrap and without root, auto has nothing to try', () => {
    const { levels, skipped } = candidateLevels('auto', { ...all, bwrap: false, root: false });
    expect(levels).toEqual([]);
    expect(skipped).toEqual(['bwrap: not installed', expect.stringMatching(/^util-linux: needs root/)]);
  });
  test('a level asked for is the only one tried', () => {
    expect(candidateLevels('none', all).levels).toEqual(['none']);
    expect(candidateLevels('bwrap', { ...all, bwrap: false })).toEqual({
      levels: [],
      skipped: ['bwrap: not installed'],
    });
  });
  test('a directory inside another masked one is covered already', () => {
    expect(outermostDirs(['/run', '/home', '/home/ci', '/root', '/home', '/'])).toEqual([
      '/run',
      '/home',
      '/root',
    ]);
  });
});

describe('working directory', () => {
  test.each([
    ['/'],
    ['/tmp'],
    ['/home/'],
    ['/etc/wirecheck'],
    ['/usr/local/x'],
    ['/proc/1'],
    ['relative/dir'],
  ])('%s is refused as a working directory', (dir) => {
    expect(unsafeWorkdir(dir)).toBeDefined();
  });
  test.each([['/tmp/wirecheck/wd'], ['/home/ci/work'], ['/srv/runner']])('%s is accepted', (dir) => {
    expect(unsafeWorkdir(dir)).toBeUndefined();
  });
  test('a directory lets a uid through by owner, group or other search bit', () => {
    const id = { uid: 65534, gid: 65534 };
    expect(searchableBy({ mode: 0o40700, uid: 0, gid: 0 }, id)).toBe(false);
    expect(searchableBy({ mode: 0o40711, uid: 0, gid: 0 }, id)).toBe(true);
    expect(searchableBy({ mode: 0o40700, uid: 65534, gid: 0 }, id)).toBe(true);
    expect(searchableBy({ mode: 0o40750, uid: 0, gid: 65534 }, id)).toBe(true);
    expect(searchableBy({ mode: 0o40705, uid: 0, gid: 65534 }, id)).toBe(false);
  });
});

describe('exit codes', () => {
  test('a death by signal n is 128+n', () => {
    expect(exitCodeOf(null, 'SIGKILL')).toBe(137);
    expect(exitCodeOf(null, 'SIGTERM')).toBe(143);
    expect(exitCodeOf(null, 'SIGXFSZ')).toBe(153);
  });
  test('an exit code is kept as it is', () => {
    expect(exitCodeOf(0, null)).toBe(0);
    expect(exitCodeOf(255, null)).toBe(255);
  });
});

describe('leftover processes', () => {
  test("a process's uids are the real, effective, saved and filesystem ones of its status", () => {
    const status =
      'Name:\tsleep\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t0\t0\t1000\nGid:\t1000\t1000\t1000\t1000\n';
    expect(uidsOfStatus(status)).toEqual([1000, 0, 0, 1000]);
  });

  test('a status without its Uid line (a process gone mid-read, a short read) has no uids', () => {
    expect(uidsOfStatus('')).toEqual([]);
    expect(uidsOfStatus('Name:\tsleep\nUid:\t1000\t0')).toEqual([]);
  });
});
