import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { mergedExitCode } from '../../src/cli/merge-reports.js';
import { type RunStop, SuiteResult } from '../../src/harness/results.js';
import { check, suiteResult } from '../reporters/fixtures.js';
import { cli, fakeEntry, fakeSuite, registerAll } from './fake-suites.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const URL_ARGS = ['--fake-url', 'http://127.0.0.1:9'];

async function setup(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-merge-stops-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const { suite } = fakeSuite('fake', [
    { id: 'fake.a.one', outcome: 'pass' },
    { id: 'fake.a.two', outcome: 'pass' },
    { id: 'fake.b.one', outcome: 'pass' },
    { id: 'fake.b.warn', outcome: 'fail', level: 'should' },
    { id: 'fake.c.two', outcome: 'pass' },
    { id: 'fake.d.one', outcome: 'pass' },
  ]);
  cleanup.push(registerAll(fakeEntry(suite)));
  return dir;
}

async function runShards(dir: string, extra: (i: number) => string[] = () => []): Promise<string[]> {
  const files: string[] = [];
  for (const i of [1, 2]) {
    const out = join(dir, 'shards', `shard-${i}`);
    await cli([
      'test',
      'fake',
      ...URL_ARGS,
      '--seed',
      '5',
      '--shard',
      `${i}/2`,
      '--report-dir',
      out,
      ...extra(i),
    ]);
    files.push(join(out, 'results.json'));
  }
  return files;
}

async function readResult(file: string): Promise<SuiteResult> {
  return SuiteResult.parse(JSON.parse(await readFile(file, 'utf8')));
}

/** Rewrite a shard as one stopped by `stop` after its first check: the rest not run. */
async function stopShard(file: string, stop: RunStop): Promise<void> {
  const result = await readResult(file);
  const checks = result.checks.map((c, i) =>
    i === 0
      ? c
      : { ...c, status: 'skip' as const, skipKind: 'not-run' as const, message: `not run: ${stop.message}` },
  );
  await writeFile(file, JSON.stringify({ ...result, checks, stopped: stop }));
}

describe('merge-reports: a shard that stopped early', () => {
  const interrupted: RunStop = { kind: 'interrupted', signal: 'SIGTERM', message: 'interrupted by SIGTERM' };
  const bug: RunStop = { kind: 'harness-error', message: 'wirecheck failed during fake.a.one (a bug)' };

  test('exits as the shard would have: 143 for SIGTERM, 130 for SIGINT, 2 for a harness error', () => {
    const passing = suiteResult('fake', [check({ id: 'fake.a', status: 'pass' })]);
    expect(mergedExitCode([passing], false)).toBe(0);
    expect(mergedExitCode([{ ...passing, stopped: interrupted }], false)).toBe(143);
    expect(mergedExitCode([{ ...passing, stopped: { ...interrupted, signal: 'SIGINT' } }], false)).toBe(130);
    expect(mergedExitCode([{ ...passing, stopped: bug }], false)).toBe(2);
    // A target gone or a budget used up failed a check: the verdict says so.
    expect(mergedExitCode([{ ...passing, stopped: { kind: 'budget', message: 'used up' } }], false)).toBe(0);
    const error = { code: 'WC_TARGET_UNAVAILABLE', message: 'no answer' };
    expect(mergedExitCode([passing, { ...passing, error }], false)).toBe(2);
  });

  test('an interrupted shard makes the merge exit 143 and say why on standard error', async () => {
    const dir = await setup();
    const files = await runShards(dir);
    await stopShard(files[1]!, interrupted);
    // Only the stopped shard's passing checks and skips are left to judge: no failure.
    const other = await readResult(files[0]!);
    await writeFile(
      files[0]!,
      JSON.stringify({
        ...other,
        checks: other.checks.map((c) => ({ ...c, status: 'pass', level: 'must' })),
      }),
    );
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(143);
    expect(run.stderr).toBe(
      'wirecheck: suite fake: a shard stopped early (interrupted by SIGTERM): the checks it did not run are not judged\n',
    );
    const merged = await readResult(join(dir, 'merged', 'results.json'));
    expect(merged.stopped).toEqual(interrupted);
  });

  test('a shard stopped by a harness error makes the merge exit 2', async () => {
    const dir = await setup();
    const files = await runShards(dir);
    await stopShard(files[0]!, bug);
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('a shard stopped early (wirecheck failed during fake.a.one (a bug))');
  });
});

describe("merge-reports: baseline marks are judged under the merge's --strict", () => {
  async function baselineFile(dir: string): Promise<string> {
    const file = join(dir, 'baseline.txt');
    await writeFile(file, 'fake:fake.b.warn  warns: no ping during long pauses\n');
    return file;
  }

  test('shards without --strict (a stale entry) merged with --strict: an expected failure, exit 0', async () => {
    const dir = await setup();
    const baseline = await baselineFile(dir);
    await runShards(dir, () => ['--baseline', baseline]);
    const run = await cli(['merge-reports', '--strict', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(0);
    const merged = await readResult(join(dir, 'merged', 'results.json'));
    expect(merged.checks.find((c) => c.id === 'fake.b.warn')?.baseline?.status).toBe('expected-failure');
  });

  test('shards with --strict (an expected failure) merged without it: a stale entry, exit 1', async () => {
    const dir = await setup();
    const baseline = await baselineFile(dir);
    await runShards(dir, () => ['--baseline', baseline, '--strict']);
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(1);
    const merged = await readResult(join(dir, 'merged', 'results.json'));
    expect(merged.checks.find((c) => c.id === 'fake.b.warn')?.baseline?.status).toBe('stale');
  });
});

describe('merge-reports: shards of different runs', () => {
  test('different --runs are refused with exit 2, naming both', async () => {
    const dir = await setup();
    await runShards(dir, (i) => ['--runs', i === 1 ? '500' : '100']);
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /WC_MERGE: suite fake: runs 100 in .*shard-2.* but 500 in .*shard-1.*: shards must run with the same --runs/,
    );
  });
});
