import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';
import { cli, fakeEntry, fakeSuite, lastLine, registerAll } from './fake-suites.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function register(...entries: Parameters<typeof registerAll>) {
  cleanup.push(registerAll(...entries));
}

const URL_ARGS = ['--fake-url', 'http://127.0.0.1:9'];

describe('wirecheck test: exit status', () => {
  test('0 when no check failed; every check is printed and the last line is the totals', async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.a.one', outcome: 'pass' },
      { id: 'fake.a.two', outcome: 'skip' },
    ]);
    register(fakeEntry(suite));
    const run = await cli(['test', 'fake', ...URL_ARGS]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('✓ PASS  fake.a.one');
    expect(run.stdout).toContain('- SKIP  fake.a.two');
    expect(run.stdout).toContain('fake against http://127.0.0.1:9');
    expect(lastLine(run.stdout)).toBe('1 passed, 0 failed, 1 skipped');
    expect(run.stderr).toBe('');
  });

  test('1 when a check failed, with expected, actual and a reproduce line', async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.a.one', outcome: 'pass' },
      { id: 'fake.a.bad', outcome: 'fail' },
    ]);
    register(fakeEntry(suite));
    const run = await cli(['test', 'fake', ...URL_ARGS, '--seed', '7']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✗ FAIL  fake.a.bad');
    expect(run.stdout).toContain('expected: good');
    expect(run.stdout).toContain('actual:   bad');
    expect(run.stdout).toContain(
      'reproduce: npx wirecheck test fake --fake-url http://127.0.0.1:9 --seed 7 --only fake.a.bad',
    );
    expect(lastLine(run.stdout)).toBe('1 passed, 1 failed, 0 skipped');
  });

  test('a warning passes, and fails the run only under --strict', async () => {
    const { suite } = fakeSuite('fake', [{ id: 'fake.a.soft', outcome: 'fail', level: 'should' }]);
    register(fakeEntry(suite));
    const lenient = await cli(['test', 'fake', ...URL_ARGS]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain('! WARN  fake.a.soft');
    expect(lenient.stdout).toContain(
      '1 warned (counted as passed; warnings fail only with --strict)\n1 passed',
    );
    const strict = await cli(['test', 'fake', ...URL_ARGS, '--strict']);
    expect(strict.code).toBe(1);
    expect(lastLine(strict.stdout)).toBe('0 passed, 1 failed, 0 skipped');
  });

  test('2 with the list of suites when the suite is unknown', async () => {
    register(fakeEntry(fakeSuite('fake', []).suite), fakeEntry(fakeSuite('other', []).suite));
    const run = await cli(['test', 'nope', ...URL_ARGS]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/WC_UNKNOWN_SUITE: no suite named "nope"; suites: .*fake, other/);
  });

  test('2 when a required target option is missing', async () => {
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]).suite));
    const run = await cli(['test', 'fake']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('wirecheck: WC_USAGE: suite fake: this suite needs --fake-url');
  });

  test("2 when a target option belongs to another suite's target", async () => {
    const other = fakeSuite('other', []).suite;
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]).suite), {
      suite: other,
      targetOptions: [{ flags: '--client <cmd>', description: 'client command' }],
      targetFromOptions: () => ({ url: 'x' }),
    });
    const run = await cli(['test', 'fake', ...URL_ARGS, '--client', 'cat']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--client <cmd> is not a target option of suite fake');
  });

  test('2 when the target cannot be reached at all, and no totals line is printed', async () => {
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }], { unreachable: true }).suite));
    const run = await cli(['test', 'fake', ...URL_ARGS]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WC_TARGET_UNAVAILABLE: suite fake: nothing answers at http://127.0.0.1:9');
    expect(run.stdout).not.toMatch(/passed, \d+ failed/);
  });

  test('2 for an unknown option, a bad --seed or a missing suite argument', async () => {
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]).suite));
    const unknown = await cli(['test', 'fake', ...URL_ARGS, '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("WC_USAGE: unknown option '--bogus'");
    const seed = await cli(['test', 'fake', ...URL_ARGS, '--seed', 'abc']);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain('--seed takes a whole number (got "abc")');
    const runs = await cli(['test', 'fake', ...URL_ARGS, '--runs', '0']);
    expect(runs.code).toBe(2);
    expect(runs.stderr).toContain('--runs must be at least 1');
    expect((await cli(['test'])).code).toBe(2);
  });
});

describe('wirecheck test: run options', () => {
  test('--only takes exact ids and prefixes ending in "."', async () => {
    const { suite, ran } = fakeSuite('fake', [
      { id: 'fake.a.one', outcome: 'pass' },
      { id: 'fake.a.two', outcome: 'pass' },
      { id: 'fake.b.one', outcome: 'fail' },
      { id: 'fake.c.one', outcome: 'pass' },
    ]);
    register(fakeEntry(suite));
    const run = await cli(['test', 'fake', ...URL_ARGS, '--only', 'fake.a.,fake.c.one']);
    expect(run.code).toBe(0);
    expect(ran.map((r) => r.id)).toEqual(['fake.a.one', 'fake.a.two', 'fake.c.one']);
  });

  test('an --only entry that matches no check is an error, not an empty green run', async () => {
    const { suite, ran } = fakeSuite('fake', [{ id: 'fake.a.one', outcome: 'pass' }]);
    register(fakeEntry(suite));
    const run = await cli(['test', 'fake', ...URL_ARGS, '--only', 'fake.a.one,fake.typo']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WC_NO_CHECKS_SELECTED: --only fake.typo matches no check of suite fake');
    expect(ran).toEqual([]);
    expect((await cli(['test', 'fake', ...URL_ARGS, '--only', 'fake.a'])).code).toBe(2);
  });

  test('--seed and --runs reach every check; --full adds the full tier and 1000 runs', async () => {
    const { suite, ran } = fakeSuite('fake', [
      { id: 'fake.quick', outcome: 'pass' },
      { id: 'fake.slow', outcome: 'pass', tier: 'full' },
    ]);
    register(fakeEntry(suite));
    await cli(['test', 'fake', ...URL_ARGS, '--seed', '123', '--runs', '5']);
    expect(ran).toEqual([{ id: 'fake.quick', seed: 123, runs: 5 }]);
    ran.length = 0;
    await cli(['test', 'fake', ...URL_ARGS, '--full', '--seed', '9']);
    expect(ran).toEqual([
      { id: 'fake.quick', seed: 9, runs: 1000 },
      { id: 'fake.slow', seed: 9, runs: 1000 },
    ]);
  });

  test('--report-dir writes results.json, junit.xml and report.html', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cli-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.bad', outcome: 'fail' }]).suite));
    const run = await cli(['test', 'fake', ...URL_ARGS, '--seed', '5', '--report-dir', join(dir, 'r')]);
    expect(run.code).toBe(1);
    expect((await readdir(join(dir, 'r'))).sort()).toEqual(['junit.xml', 'report.html', 'results.json']);
    const results = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'r', 'results.json'), 'utf8')));
    expect(results).toMatchObject({ suite: 'fake', target: 'http://127.0.0.1:9', seed: 5 });
    expect(results.summary).toEqual({ passed: 0, failed: 1, warned: 0, skipped: 0 });
    expect(run.stdout).toContain(`reports written to ${join(dir, 'r')}`);
    expect(lastLine(run.stdout)).toBe('0 passed, 1 failed, 0 skipped');
  });

  test('--help shows the target options of every registered suite', async () => {
    register(fakeEntry(fakeSuite('fake', []).suite));
    const run = await cli(['test', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--fake-url <url>\s+where the fake target is \[fake\]/);
    expect(run.stdout).toContain('--only <ids>');
  });
});
