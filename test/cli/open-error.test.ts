import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { Suite } from '../../src/harness/check.js';
import { SuiteResult } from '../../src/harness/results.js';
import { RunSummary } from '../../src/reporters/json.js';
import { xmlProblems } from '../reporters/xml-wellformed.js';
import { cli, type FakeTarget, fakeEntry, fakeSuite, registerAll } from './fake-suites.js';

// A suite whose open throws what no target causes (a TypeError, a file system error) is a
// harness error: exit 2, and the reports are written all the same, saying so.

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const SECRET = 'sk-open-secret-4242';

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-open-error-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Suite `name` whose open throws a TypeError quoting the target's secret, which its scrubber hides. */
function brokenOpen(name: string): Suite<FakeTarget, object> {
  const { suite } = fakeSuite(name, [
    { id: `${name}.a`, outcome: 'pass' },
    { id: `${name}.b`, outcome: 'pass' },
  ]);
  return {
    ...suite,
    scrubber: () => (text) => text.replaceAll(SECRET, '[redacted]'),
    async open() {
      throw new TypeError(`cannot use the token ${SECRET}`);
    },
  };
}

async function results(path: string): Promise<SuiteResult> {
  return SuiteResult.parse(JSON.parse(await readFile(path, 'utf8')));
}

describe("an error thrown by a suite's open that is not a target's", () => {
  test('wirecheck test: exit 2, and results.json and junit.xml say the suite was stopped by a harness error, scrubbed', async () => {
    cleanup.push(registerAll(fakeEntry(brokenOpen('fake'))));
    const dir = join(await tempDir(), 'r');
    const run = await cli([
      'test',
      'fake',
      '--fake-url',
      `http://127.0.0.1:9/${SECRET}`,
      '--report-dir',
      dir,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'wirecheck: WC_INTERNAL: suite fake: TypeError: cannot use the token [redacted]',
    );
    expect(run.stdout).toContain(`reports written to ${dir}`);
    expect(run.stdout).toContain(
      '· NOT RUN  2 checks: wirecheck failed in suite fake (a bug of wirecheck or of a suite): TypeError: cannot use the token [redacted]',
    );
    const result = await results(join(dir, 'results.json'));
    expect(result.stopped?.kind).toBe('harness-error');
    expect(result.stopped?.message).toContain('TypeError: cannot use the token [redacted]');
    expect(result.checks.map((c) => [c.id, c.skipKind])).toEqual([
      ['fake.a', 'not-run'],
      ['fake.b', 'not-run'],
    ]);
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    expect(xmlProblems(junit)).toEqual([]);
    expect(junit).toMatch(/<testsuite name="fake" tests="3" failures="0" errors="1" skipped="2"/);
    expect(junit).toContain('name="fake (stopped)"');
    for (const text of [run.stdout, run.stderr, junit, await readFile(join(dir, 'results.json'), 'utf8')]) {
      expect(text).not.toContain(SECRET);
    }
  });

  test('wirecheck all: the suite stays in the combined reports beside the others, exit 2', async () => {
    const events: string[] = [];
    const beta = fakeSuite('beta', [{ id: 'beta.a', outcome: 'pass' }]);
    cleanup.push(
      registerAll(
        fakeEntry(brokenOpen('alpha'), { url: 'ref://alpha', events }),
        fakeEntry(beta.suite, { url: 'ref://beta', events }),
      ),
    );
    const dir = await tempDir();
    const run = await cli(['all', '--jobs', '1', '--report-dir', dir]);
    expect(run.code).toBe(2);
    expect(events).toEqual(['start alpha', 'close alpha', 'start beta', 'close beta']);
    const summary = RunSummary.parse(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')));
    expect(summary.suites.map((s) => [s.suite, s.stopped?.kind ?? ''])).toEqual([
      ['alpha', 'harness-error'],
      ['beta', ''],
    ]);
    expect((await results(join(dir, 'alpha', 'results.json'))).stopped?.kind).toBe('harness-error');
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites name="wirecheck" tests="4" failures="0" errors="1" skipped="2"/);
  });
});
