import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';
import { interruptStop } from '../../src/harness/stop.js';
import { cli, fakeEntry, fakeSuite, lastLine, registerAll } from './fake-suites.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const URL_ARGS = ['--fake-url', 'http://127.0.0.1:9'];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-stops-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function resultsIn(dir: string): Promise<SuiteResult> {
  return SuiteResult.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
}

describe('wirecheck test: an interrupt', () => {
  test('stops the running check, prints "interrupted" and the totals so far, writes the reports with the rest not run, exits 130', async () => {
    const { suite, events, ran } = fakeSuite('fake', [
      { id: 'fake.a', outcome: 'pass' },
      { id: 'fake.b', outcome: 'hang', timeoutMs: 60_000 },
      { id: 'fake.c', outcome: 'pass' },
    ]);
    cleanup.push(registerAll(fakeEntry(suite)));
    const dir = join(await tempDir(), 'r');
    const stop = new AbortController();
    // Once fake.b runs, not after a fixed time: on a loaded machine fake.a was still running.
    const hang = setInterval(() => {
      if (ran.some((r) => r.id === 'fake.b')) stop.abort(interruptStop('SIGINT'));
    }, 10);
    cleanup.push(() => clearInterval(hang));
    const started = performance.now();
    const run = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', dir], { stop: stop.signal });
    // Only waiting out the check's 60 s is the fault: a bound near the real time fails under load.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(run.code).toBe(130);
    expect(events).toEqual(['open', 'close']);
    expect(run.stdout).toContain(
      '  · NOT RUN  2 checks: interrupted by SIGINT\n      checks: fake.b, fake.c',
    );
    expect(run.stdout).toContain(
      'interrupted by SIGINT: 1 of 3 checks finished; the rest are marked not run',
    );
    expect(lastLine(run.stdout)).toBe('1 passed, 0 failed, 0 warned, 2 skipped');
    const results = await resultsIn(dir);
    expect(results.stopped).toEqual({
      kind: 'interrupted',
      signal: 'SIGINT',
      message: 'interrupted by SIGINT',
    });
    expect(results.checks.map((c) => [c.id, c.status, c.skipKind ?? ''])).toEqual([
      ['fake.a', 'pass', ''],
      ['fake.b', 'skip', 'not-run'],
      ['fake.c', 'skip', 'not-run'],
    ]);
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toContain('not run: interrupted by SIGINT');
  });

  test('SIGTERM exits 143; in `all` the suites not reached are reported not run', async () => {
    const events: string[] = [];
    const a = fakeSuite('alpha', [{ id: 'alpha.hang', outcome: 'hang', timeoutMs: 60_000 }]);
    const b = fakeSuite('beta', [{ id: 'beta.ok', outcome: 'pass' }]);
    cleanup.push(
      registerAll(
        fakeEntry(a.suite, { url: 'ref://a', events }),
        fakeEntry(b.suite, { url: 'ref://b', events }),
      ),
    );
    const dir = await tempDir();
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(interruptStop('SIGTERM')), 100);
    cleanup.push(() => clearTimeout(timer));
    const run = await cli(['all', '--report-dir', dir, '--jobs', '1'], { stop: stop.signal });
    expect(run.code).toBe(143);
    expect(events).toEqual(['start alpha', 'close alpha']);
    expect(b.ran).toEqual([]);
    const beta = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'beta', 'results.json'), 'utf8')));
    expect(beta.checks.map((c) => [c.id, c.skipKind])).toEqual([['beta.ok', 'not-run']]);
    expect(beta.stopped?.signal).toBe('SIGTERM');
  });
});

describe('wirecheck test: a harness error', () => {
  test('stops the run with exit 2, says it is a bug of wirecheck, and still writes what finished', async () => {
    const { suite, ran } = fakeSuite('fake', [
      { id: 'fake.a', outcome: 'fail' },
      { id: 'fake.b', outcome: 'hang', timeoutMs: 60_000 },
    ]);
    cleanup.push(registerAll(fakeEntry(suite)));
    const dir = join(await tempDir(), 'r');
    const stop = new AbortController();
    // Once fake.b runs, not after a fixed 100 ms: on a loaded machine fake.a had not finished.
    const timer = setInterval(() => {
      if (ran.some((r) => r.id === 'fake.b'))
        stop.abort({
          kind: 'harness-error',
          message: 'wirecheck failed (a bug of wirecheck or of a suite): Error: boom',
        });
    }, 10);
    cleanup.push(() => clearInterval(timer));
    const run = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', dir], { stop: stop.signal });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'wirecheck: WC_INTERNAL: an uncaught error stopped the run: this is a bug of wirecheck',
    );
    expect(run.stderr).toContain('1 of 2 checks finished');
    const results = await resultsIn(dir);
    expect(results.stopped?.kind).toBe('harness-error');
    expect(results.checks.map((c) => c.status)).toEqual(['fail', 'skip']);
  });
});

describe('wirecheck test: a target that cannot run', () => {
  test('one message on stderr with what was seen, exit 2, no check counted, and a report that says so', async () => {
    const { suite, ran } = fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }], { unreachable: true });
    cleanup.push(registerAll(fakeEntry(suite)));
    const dir = join(await tempDir(), 'r');
    const run = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', dir]);
    expect(run.code).toBe(2);
    expect(ran).toEqual([]);
    expect(run.stderr).toBe(
      `wirecheck: WC_TARGET_UNAVAILABLE: suite fake: the client command "node /nonexistent.js" exited 1 before sending a request; stderr:\nError: Cannot find module '/nonexistent.js' (at http://127.0.0.1:9)\n`,
    );
    expect(run.stdout).not.toMatch(/passed, \d+ failed/);
    expect(run.stdout).toContain(`reports written to ${dir}`);
    const results = await resultsIn(dir);
    expect(results.checks).toEqual([]);
    expect(results.summary).toMatchObject({ passed: 0, failed: 0, warned: 0, skipped: 0 });
    expect(results.error?.code).toBe('WC_TARGET_UNAVAILABLE');
    expect(results.error?.message).toContain("Cannot find module '/nonexistent.js'");
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('The target could not be run');
  });
});

describe('wirecheck test: failures of one cause, tiers and runs on the console', () => {
  test('many failures of one cause are one entry; a full-tier check chosen with --only says [full] and the header says full tier', async () => {
    const cause = 'the client exited 1 before sending a request; stderr: boom';
    const { suite } = fakeSuite('fake', [
      ...Array.from({ length: 5 }, (_, i) => ({ id: `fake.c${i}`, outcome: 'fail' as const, cause })),
      { id: 'fake.slow', outcome: 'pass' as const, tier: 'full' as const, propertyRuns: 3 },
    ]);
    cleanup.push(registerAll(fakeEntry(suite)));
    const run = await cli(['test', 'fake', ...URL_ARGS, '--seed', '4', '--runs', '20']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`  ✗ FAIL  5 checks failed for one cause: ${cause}`);
    expect(run.stdout.match(/stderr: boom/g)).toHaveLength(1);
    const only = await cli([
      'test',
      'fake',
      ...URL_ARGS,
      '--seed',
      '4',
      '--runs',
      '20',
      '--only',
      'fake.slow',
    ]);
    expect(only.stdout).toContain('(seed 4, 20 runs per property, full tier)');
    expect(only.stdout).toMatch(
      /✓ PASS {2}fake\.slow {2}\d+ ms {2}\[full\] \[3 runs per property, capped from 20\]/,
    );
  });
});

describe('--report-dir checked before the run', () => {
  test('under /proc: exit 2 at once with WC_REPORT_DIR, and nothing runs', async () => {
    const { suite, ran } = fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]);
    cleanup.push(registerAll(fakeEntry(suite)));
    for (const dir of ['/proc/x', '/proc/x/y/z', '/sys/wirecheck', '/dev/wirecheck-reports']) {
      const started = performance.now();
      const run = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', dir]);
      // Generous, to catch a hang only: that nothing ran is the check above and below.
      expect(performance.now() - started, dir).toBeLessThan(5_000);
      expect(run.code, dir).toBe(2);
      expect(run.stderr).toContain(`wirecheck: WC_REPORT_DIR: the report directory ${dir} cannot be used:`);
    }
    expect(ran).toEqual([]);
  });

  test('a file in the way, or a directory that cannot be written: exit 2 before the run; a missing one is created', async () => {
    const { suite, ran } = fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]);
    cleanup.push(registerAll(fakeEntry(suite)));
    const root = await tempDir();
    await writeFile(join(root, 'file'), 'x');
    const file = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', join(root, 'file')]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain('it exists and is not a directory');
    const under = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', join(root, 'file', 'sub')]);
    expect(under.code).toBe(2);
    expect(under.stderr).toContain(`${join(root, 'file')} is not a directory`);
    // A directory no file can be written in, for root too (mode bits do not stop root): the
    // name of wirecheck's write test (.wirecheck-write-test-<pid>, in this process) is taken
    // by a directory, so writing that file fails with EISDIR.
    await mkdir(join(root, 'locked', `.wirecheck-write-test-${process.pid}`), { recursive: true });
    const locked = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', join(root, 'locked')]);
    expect(locked.code).toBe(2);
    expect(locked.stderr).toContain(
      `the report directory ${join(root, 'locked')} cannot be used: cannot write in it`,
    );
    expect(locked.stderr).toContain('EISDIR');
    expect(ran).toEqual([]);
    const created = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', join(root, 'a', 'b', 'c')]);
    expect(created.code).toBe(0);
    expect((await readdir(join(root, 'a', 'b', 'c'))).sort()).toEqual([
      'junit.xml',
      'report.html',
      'results.json',
    ]);
  });

  test('when writing fails during the run anyway, the results are still printed and the exit status says so', async () => {
    const { suite } = fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]);
    cleanup.push(registerAll(fakeEntry(suite)));
    const dir = join(await tempDir(), 'r');
    // A directory named like a report file: the write of that file fails after the run.
    await mkdir(join(dir, 'junit.xml'), { recursive: true });
    const run = await cli(['test', 'fake', ...URL_ARGS, '--report-dir', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('wirecheck: WC_REPORT_WRITE: reports: cannot write report');
    expect(run.stdout).toContain('✓ PASS  fake.x');
    expect(lastLine(run.stdout)).toBe('1 passed, 0 failed, 0 warned, 0 skipped');
  });
});

describe('wirecheck fixtures validate: a path that cannot be read', () => {
  test('is an error on stderr with its code, not a verdict on stdout; exit 2', async () => {
    const missing = join(await tempDir(), 'nope.json');
    const run = await cli(['fixtures', 'validate', missing]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^wirecheck: WC_FIXTURE_READ: ${missing}: cannot read: ENOENT`));
  });
});
