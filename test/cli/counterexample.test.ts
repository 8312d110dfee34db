import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { CheckFailure, type Suite } from '../../src/harness/check.js';
import { checkProperty } from '../../src/harness/property.js';
import { SuiteResult } from '../../src/harness/results.js';
import { LOCK_FILE } from '../../src/reporters/report-lock.js';
import { cli, type FakeTarget, fakeEntry, fakeSuite, registerAll } from './fake-suites.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cli-cx-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const BROKEN = ['--fake-url', 'http://127.0.0.1:9/broken'];
const FIXED = ['--fake-url', 'http://127.0.0.1:9/fixed'];

/**
 * Register suite `fake`: its property fails for any string over 5 characters unless the
 * target URL holds `fixed`; `seen` collects every string the property ran on.
 */
function register(seen: string[]) {
  let url = '';
  const suite: Suite<FakeTarget, object> = {
    name: 'fake',
    description: 'fake property suite',
    checks: [
      {
        id: 'fake.strings.short',
        clause: 'Events rule 3',
        description: 'strings stay short',
        level: 'must',
        basis: 'spec',
        rule: 'A rule of a test suite, stated for every target.',
        async run(_ctx, env) {
          await checkProperty(env, fc.string({ minLength: 1 }), async (s) => {
            seen.push(s);
            if (!url.includes('fixed') && s.length > 5) {
              throw new CheckFailure('string too long', '<= 5', String(s.length));
            }
          });
        },
      },
    ],
    describeTarget: (t) => t.url,
    targetArgs: (t) => ['--fake-url', t.url],
    async open(target) {
      url = target.url;
      return { close: async () => {} };
    },
  };
  cleanup.push(registerAll(fakeEntry(suite)));
}

/** The arguments of a printed `npx wirecheck ...` line (its words are shell-safe here). */
function argsOf(line: string): string[] {
  const words = line.trim().split(/\s+/);
  expect(words.slice(0, 2)).toEqual(['npx', 'wirecheck']);
  return words.slice(2);
}

describe('wirecheck test --report-dir: a failed property saves its counterexample with a replay command', () => {
  test('the console, results.json, junit.xml and report.html name the file and the replay line', async () => {
    const dir = await tempDir();
    register([]);
    const run = await cli(['test', 'fake', ...BROKEN, '--seed', '5', '--report-dir', dir]);
    expect(run.code).toBe(1);
    const file = join(dir, 'counterexamples', 'fake.strings.short.json');
    const replay = `npx wirecheck test fake --fake-url http://127.0.0.1:9/broken --replay ${file}`;
    expect(run.stdout).toContain(`counterexample: ${file}`);
    expect(run.stdout).toContain(`replay:    ${replay}`);
    const results = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
    expect(results.checks[0]?.counterexample).toEqual({ file, replay });
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toContain(`replay: ${replay}`);
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain(`replay: <code>${replay}</code>`);
    const fixture = JSON.parse(await readFile(file, 'utf8'));
    expect(fixture).toMatchObject({ kind: 'counterexample', check: 'fake.strings.short', seed: 5 });
    expect(fixture.counterexample).toHaveLength(6);
  });

  test('without --report-dir nothing is saved and the seed and path are printed as before', async () => {
    register([]);
    const run = await cli(['test', 'fake', ...BROKEN, '--seed', '5']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/fast-check seed 5, path "[\d:]+"/);
    expect(run.stdout).not.toContain('counterexample: ');
    expect(run.stdout).toContain('reproduce: npx wirecheck test fake');
  });

  test('the printed replay command runs exactly the saved case, fails the same way, and passes once fixed', async () => {
    const dir = await tempDir();
    register([]);
    const first = await cli(['test', 'fake', ...BROKEN, '--seed', '5', '--report-dir', dir]);
    const line = /replay: +(npx wirecheck .*)$/m.exec(first.stdout)?.[1];
    expect(line).toBeDefined();
    const file = join(dir, 'counterexamples', 'fake.strings.short.json');
    const saved = JSON.parse(await readFile(file, 'utf8')).counterexample;
    cleanup.pop()?.();

    const seen: string[] = [];
    register(seen);
    const again = await cli(argsOf(line!));
    expect(again.code).toBe(1);
    expect(seen).toEqual([saved]);
    expect(again.stdout).toContain(`replaying the counterexample of fake.strings.short from ${file}`);
    expect(again.stdout).toContain('string too long (replayed the saved counterexample;');
    expect(again.stdout).toContain('expected: <= 5');

    seen.length = 0;
    const fixedArgs = argsOf(line!).map((a) => (a === BROKEN[1] ? FIXED[1]! : a));
    const fixed = await cli(fixedArgs);
    expect(fixed.code).toBe(0);
    expect(seen).toEqual([saved]);
    expect(fixed.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed, 0 warned, 0 skipped');
  });

  test('a passing replay into the report directory that holds its fixture keeps the fixture, and leaves no lock', async () => {
    const dir = await tempDir();
    register([]);
    const first = await cli(['test', 'fake', ...BROKEN, '--seed', '5', '--report-dir', dir]);
    const line = /replay: +(npx wirecheck .*)$/m.exec(first.stdout)?.[1];
    const file = join(dir, 'counterexamples', 'fake.strings.short.json');
    const fixedArgs = argsOf(line!).map((a) => (a === BROKEN[1] ? FIXED[1]! : a));
    const fixed = await cli([...fixedArgs, '--report-dir', dir]);
    expect(fixed.code).toBe(0);
    // The run wrote no counterexample, so the earlier one is stale but for being the replayed fixture.
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ check: 'fake.strings.short' });
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  test('a FIFO where the counterexample goes is neither opened nor replaced: the verdict stands and says so, at once', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'counterexamples'));
    const fifo = join(dir, 'counterexamples', 'fake.strings.short.json');
    execFileSync('mkfifo', [fifo]);
    register([]);
    const run = await cli(['test', 'fake', ...BROKEN, '--seed', '5', '--report-dir', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `(the counterexample could not be saved: cannot write counterexample ${fifo}: something other than a regular file is there)`,
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  test('wirecheck fixtures validate accepts a counterexample fixture', async () => {
    const dir = await tempDir();
    register([]);
    await cli(['test', 'fake', ...BROKEN, '--seed', '5', '--report-dir', dir]);
    const run = await cli(['fixtures', 'validate', join(dir, 'counterexamples')]);
    expect(run.stdout).toContain('ok: counterexample of fake.strings.short (suite fake)');
    expect(run.code).toBe(0);
  });
});

describe('wirecheck test --replay: usage errors (exit 2)', () => {
  async function savedFixture(): Promise<string> {
    const dir = await tempDir();
    register([]);
    await cli(['test', 'fake', ...BROKEN, '--seed', '5', '--report-dir', dir]);
    return join(dir, 'counterexamples', 'fake.strings.short.json');
  }

  test('with --only, --seed, --runs, --full or --shard, which the fixture fixes', async () => {
    const file = await savedFixture();
    const run = await cli(['test', 'fake', ...BROKEN, '--replay', file, '--seed', '1', '--only', 'fake.']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WC_USAGE: --replay runs the saved case');
    expect(run.stderr).toContain('leave out --only, --seed');
  });

  test('a counterexample of another suite', async () => {
    const file = await savedFixture();
    cleanup.push(registerAll(fakeEntry(fakeSuite('other', [{ id: 'other.a', outcome: 'pass' }]).suite)));
    const run = await cli(['test', 'other', ...BROKEN, '--replay', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'is a counterexample of suite fake (check fake.strings.short), not of suite other',
    );
  });

  test('a file that is not a counterexample fixture', async () => {
    register([]);
    const dir = await tempDir();
    const file = join(dir, 'x.json');
    await writeFile(file, '{"format":"wirecheck-fixture","version":1,"kind":"counterexample"}');
    const run = await cli(['test', 'fake', ...BROKEN, '--replay', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`WC_FIXTURE_READ: ${file}: `);
  });
});
