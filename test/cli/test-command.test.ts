import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.js';
import { SuiteResult } from '../../src/harness/results.js';
import { cli, fakeEntry, fakeSuite, lastLine, registerAll, testGuard } from './fake-suites.js';

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
    expect(lastLine(run.stdout)).toBe('1 passed, 0 failed, 0 warned, 1 skipped');
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
    expect(lastLine(run.stdout)).toBe('1 passed, 1 failed, 0 warned, 0 skipped');
  });

  test('a warning passes, and fails the run only under --strict', async () => {
    const { suite } = fakeSuite('fake', [{ id: 'fake.a.soft', outcome: 'fail', level: 'should' }]);
    register(fakeEntry(suite));
    const lenient = await cli(['test', 'fake', ...URL_ARGS]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain('! WARN  fake.a.soft');
    // The last line names the warning apart from the passes.
    expect(lastLine(lenient.stdout)).toBe('0 passed, 0 failed, 1 warned, 0 skipped');
    const strict = await cli(['test', 'fake', ...URL_ARGS, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(
      '1 warned (counted as failed under --strict)\n0 passed, 1 failed, 0 warned',
    );
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
    expect(run.stderr).toContain(
      'WC_TARGET_UNAVAILABLE: suite fake: the client command "node /nonexistent.js" exited 1',
    );
    expect(run.stdout).not.toMatch(/passed, \d+ failed/);
  });

  test('2 for an unknown option, a bad --seed or a missing suite argument', async () => {
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]).suite));
    const unknown = await cli(['test', 'fake', ...URL_ARGS, '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("WC_USAGE: unknown option '--bogus'");
    const seed = await cli(['test', 'fake', ...URL_ARGS, '--seed', 'abc']);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain('--seed takes a whole number from 0 to 2147483647 (got "abc")');
    const negative = await cli(['test', 'fake', ...URL_ARGS, '--runs', '-5']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain('--runs takes a whole number from 1 to 1000000 (got "-5")');
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
    expect(results.summary).toEqual({
      passed: 0,
      failed: 1,
      warned: 0,
      skipped: 0,
    });
    expect(run.stdout).toContain(`reports written to ${join(dir, 'r')}`);
    expect(lastLine(run.stdout)).toBe('0 passed, 1 failed, 0 warned, 0 skipped');
  });

  test('--help shows the target options of every registered suite', async () => {
    register(fakeEntry(fakeSuite('fake', []).suite));
    const run = await cli(['test', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--fake-url <url>\s+where the fake target is \[fake\]/);
    expect(run.stdout).toContain('--only <ids>');
  });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cli-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('wirecheck test --baseline FILE', () => {
  async function baselineFile(text: string): Promise<string> {
    const path = join(await tempDir(), 'baseline.txt');
    await writeFile(path, text);
    return path;
  }

  test('a listed failure is an expected failure: printed as such, exit 0, results.json keeps the real status', async () => {
    register(
      fakeEntry(
        fakeSuite('fake', [
          { id: 'fake.a.one', outcome: 'pass' },
          { id: 'fake.a.bad', outcome: 'fail' },
        ]).suite,
      ),
    );
    const file = await baselineFile('# known\nfake:fake.a.bad  upstream bug 12\n');
    const dir = join(await tempDir(), 'r');
    const run = await cli(['test', 'fake', ...URL_ARGS, '--baseline', file, '--report-dir', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('~ EXPECTED FAILURE  fake.a.bad');
    expect(run.stdout).toContain('      baseline: upstream bug 12');
    expect(run.stdout).toContain('1 expected failure (listed in the baseline; counted as skipped)');
    expect(lastLine(run.stdout)).toBe('1 passed, 0 failed, 0 warned, 1 skipped');
    const results = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
    expect(results.checks.find((c) => c.id === 'fake.a.bad')).toMatchObject({
      status: 'fail',
      baseline: { status: 'expected-failure', reason: 'upstream bug 12' },
    });
  });

  test('an unlisted failure still fails the run', async () => {
    register(
      fakeEntry(
        fakeSuite('fake', [
          { id: 'fake.a.bad', outcome: 'fail' },
          { id: 'fake.b.bad', outcome: 'fail' },
        ]).suite,
      ),
    );
    const run = await cli([
      'test',
      'fake',
      ...URL_ARGS,
      '--baseline',
      await baselineFile('fake:fake.a.bad  known'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✗ FAIL  fake.b.bad');
    expect(lastLine(run.stdout)).toBe('0 passed, 1 failed, 0 warned, 1 skipped');
  });

  test('a listed check that passes now is a stale entry: exit 1 and a message to remove it', async () => {
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.a.one', outcome: 'pass' }]).suite));
    const file = await baselineFile('\nfake:fake.a.one  was broken');
    const run = await cli(['test', 'fake', ...URL_ARGS, '--baseline', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✗ STALE  fake.a.one');
    expect(run.stdout).toContain(
      'listed in the baseline as an expected failure (was broken), but it passes now: remove the entry fake:fake.a.one',
    );
    expect(run.stdout).toContain(`baseline ${file}: remove the stale entry fake:fake.a.one (line 2)`);
    expect(lastLine(run.stdout)).toBe('0 passed, 1 failed, 0 warned, 0 skipped');
  });

  test('an entry naming no known check, a malformed line or a missing file is exit 2 before anything runs', async () => {
    const { suite, ran } = fakeSuite('fake', [{ id: 'fake.a.one', outcome: 'pass' }]);
    register(fakeEntry(suite));
    const unknown = await cli([
      'test',
      'fake',
      ...URL_ARGS,
      '--baseline',
      await baselineFile('fake:fake.typo  x'),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('WC_BASELINE: baseline');
    expect(unknown.stderr).toContain(':1: suite fake has no check fake.typo: remove the entry');
    const malformed = await cli([
      'test',
      'fake',
      ...URL_ARGS,
      '--baseline',
      await baselineFile('fake.a.one'),
    ]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('expected "suite:check-id  reason"');
    const missing = await cli(['test', 'fake', ...URL_ARGS, '--baseline', '/nonexistent/baseline.txt']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('WC_BASELINE: cannot read the baseline file /nonexistent/baseline.txt');
    expect(ran).toEqual([]);
  });
});

describe('wirecheck test --shard i/n', () => {
  const IDS = ['fake.a.one', 'fake.a.two', 'fake.b.one', 'fake.c.one', 'fake.c.two', 'fake.d.one'];

  test('the shards of a suite together run every selected check exactly once; results.json records the shard', async () => {
    const { suite, ran } = fakeSuite(
      'fake',
      IDS.map((id) => ({ id, outcome: 'pass' as const })),
    );
    register(fakeEntry(suite));
    const dir = await tempDir();
    const perShard: string[][] = [];
    for (const i of [1, 2, 3]) {
      ran.length = 0;
      const run = await cli([
        'test',
        'fake',
        ...URL_ARGS,
        '--shard',
        `${i}/3`,
        '--report-dir',
        join(dir, `s${i}`),
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`quick tier, shard ${i}/3)`);
      perShard.push(ran.map((r) => r.id));
      const results = SuiteResult.parse(
        JSON.parse(await readFile(join(dir, `s${i}`, 'results.json'), 'utf8')),
      );
      expect(results.shard).toEqual({ index: i, count: 3 });
      expect(results.checks.map((c) => c.id)).toEqual(perShard[i - 1]);
    }
    expect(perShard.flat().sort()).toEqual([...IDS].sort());
  });

  test('--shard applies after --only', async () => {
    const { suite, ran } = fakeSuite(
      'fake',
      IDS.map((id) => ({ id, outcome: 'pass' as const })),
    );
    register(fakeEntry(suite));
    const seen: string[] = [];
    for (const i of [1, 2]) {
      ran.length = 0;
      await cli(['test', 'fake', ...URL_ARGS, '--only', 'fake.c.', '--shard', `${i}/2`]);
      seen.push(...ran.map((r) => r.id));
    }
    expect(seen.sort()).toEqual(['fake.c.one', 'fake.c.two']);
  });

  test('a bad --shard is a usage error', async () => {
    register(fakeEntry(fakeSuite('fake', [{ id: 'fake.x', outcome: 'pass' }]).suite));
    for (const bad of ['0/2', '3/2', 'half']) {
      const run = await cli(['test', 'fake', ...URL_ARGS, '--shard', bad]);
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toMatch(/WC_USAGE: .*--shard/);
    }
  });
});

describe('wirecheck test: progress and colour', () => {
  /** Run the CLI with stdout as a fake terminal (or a pipe) that records every write. */
  async function cliOn(
    args: string[],
    stdout: { isTTY: boolean; columns?: number },
    env: NodeJS.ProcessEnv = {},
  ) {
    const writes: string[] = [];
    const code = await main(['node', 'wirecheck', ...args], {
      stdout: { write: (s: string) => writes.push(s), ...stdout },
      stderr: { write: () => true, isTTY: false },
      stdin: Readable.from([]),
      env,
      deps: {},
      onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
      guardRun: () => testGuard(),
    });
    return { code, writes, text: writes.join('') };
  }

  const CHECKS = [
    { id: 'fake.a.one', outcome: 'pass' as const },
    { id: 'fake.a.bad', outcome: 'fail' as const },
  ];

  test('on a terminal a status line (suite, n/total, current check) is redrawn in place and cleared before the summary', async () => {
    register(fakeEntry(fakeSuite('fake', CHECKS).suite));
    const run = await cliOn(['test', 'fake', ...URL_ARGS, '--seed', '3'], { isTTY: true, columns: 100 });
    expect(run.code).toBe(1);
    expect(run.writes).toContain('\r\u001b[K\u001b[2m▸ fake 0/2 fake.a.one\u001b[0m');
    expect(run.writes).toContain('\r\u001b[K\u001b[2m▸ fake 1/2 fake.a.bad\u001b[0m');
    // Erased before the suite summary: what is left on screen ends with the totals line.
    const summaryAt = run.writes.findIndex((w) => w.includes('suite fake:'));
    expect(run.writes.slice(0, summaryAt).at(-1)).toBe('\r\u001b[K');
    expect(run.writes.slice(summaryAt).join('')).not.toContain('▸');
    expect(lastLine(run.text)).toBe('1 passed, 1 failed, 0 warned, 0 skipped');
  });

  test('the status line is cut to the terminal width so that it never wraps', async () => {
    register(fakeEntry(fakeSuite('fake', [{ id: `fake.${'x'.repeat(200)}`, outcome: 'pass' }]).suite));
    const run = await cliOn(['test', 'fake', ...URL_ARGS], { isTTY: true, columns: 40 }, { NO_COLOR: '1' });
    const status = run.writes.filter((w) => w.includes('▸'));
    expect(status.length).toBeGreaterThan(0);
    for (const w of status) expect(w.replace('\r\u001b[K', '').length).toBeLessThanOrEqual(39);
  });

  test('when stdout is not a terminal: plain lines, no escape codes, the totals last', async () => {
    register(fakeEntry(fakeSuite('fake', CHECKS).suite));
    const run = await cliOn(['test', 'fake', ...URL_ARGS], { isTTY: false });
    expect(run.text).not.toContain('\u001b');
    expect(run.text).not.toContain('\r');
    expect(run.text).toContain('  ✓ PASS  fake.a.one');
    expect(lastLine(run.text)).toBe('1 passed, 1 failed, 0 warned, 0 skipped');
  });

  test('NO_COLOR (any non-empty value) turns colour off on a terminal; FORCE_COLOR turns it on in a pipe', async () => {
    register(fakeEntry(fakeSuite('fake', CHECKS).suite));
    const colour = /\u001b\[(31|32|33|1|2)m/;
    expect((await cliOn(['test', 'fake', ...URL_ARGS], { isTTY: true })).text).toMatch(colour);
    expect((await cliOn(['test', 'fake', ...URL_ARGS], { isTTY: true }, { NO_COLOR: '1' })).text).not.toMatch(
      colour,
    );
    expect((await cliOn(['test', 'fake', ...URL_ARGS], { isTTY: false }, { FORCE_COLOR: '1' })).text).toMatch(
      colour,
    );
    const both = await cliOn(
      ['test', 'fake', ...URL_ARGS],
      { isTTY: false },
      { FORCE_COLOR: '1', NO_COLOR: 'x' },
    );
    expect(both.text).not.toMatch(colour);
  });
});
