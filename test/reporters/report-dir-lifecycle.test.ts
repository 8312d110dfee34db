import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, constants as fsConstants, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { WirecheckError } from '../../src/harness/errors.js';
import type { SuiteResult } from '../../src/harness/results.js';
import { prepareReportDir, releaseReportDir } from '../../src/reporters/report-dir.js';
import { LOCK_FILE } from '../../src/reporters/report-lock.js';
import { writeReports } from '../../src/reporters/write.js';
import { mixedResult } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-report-dir-'));
});
afterEach(async () => {
  await releaseReportDir(dir);
  await rm(dir, { recursive: true, force: true });
});

function seeded(suite: string, seed: number): SuiteResult {
  return { ...mixedResult(suite), seed };
}

/** A process that sleeps until killed, and its pid. */
function sleeper(): { pid: number; stop: () => Promise<void> } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    pid: child.pid as number,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function startTicks(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] as string;
}

async function lockOf(pid: number, extra: Record<string, unknown> = {}): Promise<void> {
  await writeFile(
    join(dir, LOCK_FILE),
    JSON.stringify({
      pid,
      startedAt: '2026-12-07T10:00:00.000Z',
      host: hostname(),
      token: 'other',
      ...extra,
    }),
  );
}

async function refusal(promise: Promise<unknown>): Promise<WirecheckError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WirecheckError);
  return error as WirecheckError;
}

describe('the report directory is locked for one run', () => {
  test('a second run into a directory a run of this process holds is refused, naming the pid; writing the reports releases it', async () => {
    await prepareReportDir(dir);
    const second = await refusal(prepareReportDir(dir));
    expect(second.code).toBe('WC_REPORT_DIR');
    expect(second.exitCode).toBe(2);
    expect(second.message).toContain(`pid ${process.pid}`);
    await writeReports(dir, [seeded('demo', 111)], { strict: false });
    expect(await readdir(dir)).not.toContain(LOCK_FILE);
    await prepareReportDir(dir);
  });

  test('two runs writing into one directory at once: one is refused, and every file carries the other seed', async () => {
    const runs = await Promise.allSettled([
      writeReports(dir, [seeded('demo', 111)], { strict: false }),
      writeReports(dir, [seeded('demo', 222)], { strict: false }),
    ]);
    const refused = runs.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason.code).toBe('WC_REPORT_DIR');
    const seed = runs[0]?.status === 'fulfilled' ? 111 : 222;
    expect(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')).seed).toBe(seed);
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toContain(
      `<property name="seed" value="${seed}"/>`,
    );
    expect(await readdir(dir)).not.toContain(LOCK_FILE);
  });

  test('a lock of another live process is refused with its pid; once that process is gone, it is taken over', async () => {
    const other = sleeper();
    try {
      await lockOf(other.pid, { startTicks: startTicks(other.pid) });
      const refused = await refusal(prepareReportDir(dir));
      expect(refused.code).toBe('WC_REPORT_DIR');
      expect(refused.message).toContain(`process ${other.pid}`);
      expect(refused.message).toContain(join(dir, LOCK_FILE));
    } finally {
      await other.stop();
    }
    await prepareReportDir(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
  });

  test('a lock whose pid now belongs to another process (started later) is taken over', async () => {
    const other = sleeper();
    try {
      await lockOf(other.pid, { startTicks: '1' });
      await prepareReportDir(dir);
      expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    } finally {
      await other.stop();
    }
  });

  test('a lock of an earlier process of this same pid (a container restarted) is taken over', async () => {
    await lockOf(process.pid);
    await prepareReportDir(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).token).not.toBe('other');
  });

  test('a process that ends without writing its reports leaves no lock', async () => {
    const module = pathToFileURL(resolve('dist/reporters/report-dir.js')).href;
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(module)}); await m.prepareReportDir(${JSON.stringify(dir)}); process.exit(3);`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
    expect(await readdir(dir)).toEqual([]);
  }, 20_000);

  test('releasing is idempotent and leaves another run’s lock alone', async () => {
    await prepareReportDir(dir);
    await releaseReportDir(dir);
    await releaseReportDir(dir);
    expect(await readdir(dir)).not.toContain(LOCK_FILE);
    await lockOf(999_999_999);
    await releaseReportDir(dir);
    expect(await readdir(dir)).toContain(LOCK_FILE);
  });
});

/** The head of a counterexample fixture wirecheck writes (src/harness/counterexamples.ts). */
const COUNTEREXAMPLE = '{"kind": "counterexample", "check": "agent.old"}';

describe('the reports of earlier runs do not stay as this run’s', () => {
  test('a run of several suites, then one of a single suite: no summary.json, suite folders or counterexamples are left of the first', async () => {
    await writeReports(dir, [seeded('agent', 1), seeded('runner', 1)], { strict: false });
    for (const where of ['counterexamples', join('agent', 'counterexamples')]) {
      await mkdir(join(dir, where), { recursive: true });
      await writeFile(join(dir, where, 'agent.old.json'), COUNTEREXAMPLE);
    }
    // A user's own things in the directory, and wirecheck-like names whose content is not wirecheck's.
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await mkdir(join(dir, 'logs'));
    await writeFile(join(dir, 'logs', 'results.json'), '{"mine": true}');
    await writeFile(join(dir, 'runner', 'notes.txt'), 'mine too');
    await writeFile(join(dir, 'counterexamples', 'README'), 'mine');
    await writeFile(join(dir, 'counterexamples', 'my-notes.json'), '{"mine": true}');

    const kept = join(dir, 'counterexamples', 'demo.a.fail.json');
    await writeFile(kept, '{}');
    const single = seeded('demo', 2);
    single.checks = single.checks.map((c) =>
      c.status === 'fail' ? { ...c, counterexample: { file: kept, replay: 'npx wirecheck …' } } : c,
    );
    await prepareReportDir(dir);
    await writeReports(dir, [single], { strict: false });

    expect((await readdir(dir)).sort()).toEqual([
      'counterexamples',
      'junit.xml',
      'logs',
      'notes.txt',
      'report.html',
      'results.json',
      'runner',
    ]);
    expect(await readdir(join(dir, 'runner'))).toEqual(['notes.txt']);
    expect((await readdir(join(dir, 'counterexamples'))).sort()).toEqual([
      'README',
      'demo.a.fail.json',
      'my-notes.json',
    ]);
    expect(await readFile(join(dir, 'logs', 'results.json'), 'utf8')).toBe('{"mine": true}');
    expect(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')).seed).toBe(2);
  });

  test('the counterexample a --replay run replays stays though the case passes now', async () => {
    const replayed = join(dir, 'counterexamples', 'demo.a.fail.json');
    const other = join(dir, 'counterexamples', 'demo.b.fail.json');
    await mkdir(join(dir, 'counterexamples'));
    await writeFile(replayed, COUNTEREXAMPLE);
    await writeFile(other, COUNTEREXAMPLE);
    await writeReports(dir, [seeded('demo', 1)], { strict: false, keep: [replayed] });
    expect(await readdir(join(dir, 'counterexamples'))).toEqual(['demo.a.fail.json']);
  });

  test('a single suite, then several: the top-level results.json of the first goes', async () => {
    await writeReports(dir, [seeded('demo', 1)], { strict: false });
    await writeReports(dir, [seeded('a', 2), seeded('b', 2)], { strict: false });
    expect((await readdir(dir)).sort()).toEqual(['a', 'b', 'junit.xml', 'report.html', 'summary.json']);
  });

  test('a summary.json that is not wirecheck’s stays', async () => {
    await writeFile(join(dir, 'summary.json'), '{"coverage": 93}');
    await writeReports(dir, [seeded('demo', 1)], { strict: false });
    expect(await readFile(join(dir, 'summary.json'), 'utf8')).toBe('{"coverage": 93}');
  });
});

describe('report paths that are not regular files', () => {
  /** Unblock a writer stuck opening the FIFO (the behaviour refused here), so the test can end. */
  function drain(fifo: string): void {
    try {
      closeSync(openSync(fifo, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK));
    } catch {
      // Not a FIFO any more.
    }
  }

  test('a FIFO at junit.xml: a clear error within a second, never opened', async () => {
    const fifo = join(dir, 'junit.xml');
    execFileSync('mkfifo', [fifo]);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 1 s')), 1000));
    try {
      const prepared = await refusal(Promise.race([prepareReportDir(dir), timeout]));
      expect(prepared.code).toBe('WC_REPORT_DIR');
      expect(prepared.message).toContain(`${fifo} is a FIFO`);
      const written = await refusal(
        Promise.race([writeReports(dir, [seeded('demo', 1)], { strict: false }), timeout]),
      );
      expect(written.code).toBe('WC_REPORT_WRITE');
      expect(written.exitCode).toBe(2);
      expect(written.message).toContain(`${fifo} is a FIFO`);
      // Refused before anything was written: no report beside the FIFO, no lock left.
      expect(await readdir(dir)).toEqual(['junit.xml']);
    } finally {
      drain(fifo);
    }
  });

  test('a FIFO in place of the lock: a clear error, never opened', async () => {
    const fifo = join(dir, LOCK_FILE);
    execFileSync('mkfifo', [fifo]);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 1 s')), 1000));
    try {
      const refused = await refusal(Promise.race([prepareReportDir(dir), timeout]));
      expect(refused.code).toBe('WC_REPORT_DIR');
      expect(refused.message).toContain(`${fifo} is not a regular file`);
    } finally {
      drain(fifo);
    }
  });

  test('a symbolic link at report.html is refused, and what it points to is left alone', async () => {
    const elsewhere = join(dir, 'elsewhere.html');
    await writeFile(elsewhere, 'theirs');
    await symlink(elsewhere, join(dir, 'report.html'));
    expect((await refusal(prepareReportDir(dir))).message).toContain('is a symbolic link');
    const written = await refusal(writeReports(dir, [seeded('demo', 1)], { strict: false }));
    expect(written.code).toBe('WC_REPORT_WRITE');
    expect(await readFile(elsewhere, 'utf8')).toBe('theirs');
  });

  test("a suite's folder that is a symbolic link out of the directory is refused", async () => {
    const outside = await mkdtemp(join(tmpdir(), 'wirecheck-outside-'));
    try {
      await symlink(outside, join(dir, 'a'));
      const written = await refusal(writeReports(dir, [seeded('a', 1), seeded('b', 1)], { strict: false }));
      expect(written.message).toContain(`${join(dir, 'a')} is a symbolic link, not a directory`);
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
