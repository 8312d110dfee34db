import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

const URL_ARGS = ['--fake-url', 'http://127.0.0.1:9'];
const IDS = ['fake.a.one', 'fake.a.two', 'fake.b.one', 'fake.c.bad', 'fake.c.two', 'fake.d.one'];

async function setup(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-merge-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const { suite } = fakeSuite(
    'fake',
    IDS.map((id) => ({ id, outcome: id.endsWith('bad') ? ('fail' as const) : ('pass' as const) })),
  );
  cleanup.push(registerAll(fakeEntry(suite)));
  return dir;
}

async function runShards(dir: string, count: number, seedOf: (i: number) => number = () => 5): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const out = join(dir, 'shards', `wirecheck-shard-${i}`);
    await cli([
      'test',
      'fake',
      ...URL_ARGS,
      '--seed',
      String(seedOf(i)),
      '--shard',
      `${i}/${count}`,
      '--report-dir',
      out,
    ]);
  }
}

describe('wirecheck merge-reports', () => {
  test("the shards' results become one set of reports, as if the suite had run whole", async () => {
    const dir = await setup();
    await runShards(dir, 3);
    const whole = join(dir, 'whole');
    await cli(['test', 'fake', ...URL_ARGS, '--seed', '5', '--report-dir', whole]);
    const merged = join(dir, 'merged');
    const run = await cli(['merge-reports', '--out', merged, join(dir, 'shards')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('merged 3 files');
    expect(run.stdout).toContain(`reports written to ${merged}`);
    expect(lastLine(run.stdout)).toBe('5 passed, 1 failed, 0 warned, 0 skipped');
    expect((await readdir(merged)).sort()).toEqual(['junit.xml', 'report.html', 'results.json']);
    const read = async (d: string) =>
      SuiteResult.parse(JSON.parse(await readFile(join(d, 'results.json'), 'utf8')));
    const [m, w] = [await read(merged), await read(whole)];
    expect(m.checks.map((c) => [c.id, c.status])).toEqual(w.checks.map((c) => [c.id, c.status]));
    expect(m.summary).toEqual(w.summary);
    expect(m.shard).toBeUndefined();
    const junit = await readFile(join(merged, 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).toHaveLength(IDS.length);
  });

  test('results.json files can be named one by one; a clean merge exits 0', async () => {
    const dir = await setup();
    await runShards(dir, 2);
    const files = [1, 2].map((i) => join(dir, 'shards', `wirecheck-shard-${i}`, 'results.json'));
    // Drop the failing check's shard content: rewrite it as passing, to see exit 0.
    for (const file of files) {
      const r = SuiteResult.parse(JSON.parse(await readFile(file, 'utf8')));
      const checks = r.checks.map((c) => ({ ...c, status: 'pass' as const }));
      await writeFile(file, JSON.stringify({ ...r, checks, summary: { ...r.summary, failed: 0 } }));
    }
    const run = await cli(['merge-reports', '--out', join(dir, 'm'), ...files]);
    expect(run.code).toBe(0);
    expect(lastLine(run.stdout)).toBe('6 passed, 0 failed, 0 warned, 0 skipped');
  });

  test('shards run with different seeds, a missing shard or a shard given twice: exit 2 with a clear error', async () => {
    const dir = await setup();
    await runShards(dir, 2, (i) => i);
    const seeds = await cli(['merge-reports', '--out', join(dir, 'm'), join(dir, 'shards')]);
    expect(seeds.code).toBe(2);
    expect(seeds.stderr).toMatch(
      /WC_MERGE: suite fake: seed 2 in .* but 1 in .*: shards must run with the same --seed/,
    );

    const one = join(dir, 'shards', 'wirecheck-shard-1', 'results.json');
    const missing = await cli(['merge-reports', '--out', join(dir, 'm'), one]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('WC_MERGE: suite fake: shard 2/2 missing');

    const twice = await cli(['merge-reports', '--out', join(dir, 'm'), one, join(dir, 'shards')]);
    expect(twice.code).toBe(2);
  });

  test('no results, unreadable or invalid inputs are exit 2; --out is required', async () => {
    const dir = await setup();
    const empty = await cli(['merge-reports', '--out', join(dir, 'm'), dir]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('WC_MERGE: no results.json among the inputs');
    const bad = join(dir, 'results.json');
    await writeFile(bad, '{"suite": 1}');
    const invalid = await cli(['merge-reports', '--out', join(dir, 'm'), bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`WC_MERGE: ${bad} is not a wirecheck results.json`);
    const gone = await cli(['merge-reports', '--out', join(dir, 'm'), join(dir, 'nope')]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('WC_MERGE: cannot read');
    expect((await cli(['merge-reports', dir])).code).toBe(2);
  });

  test('an input directory that is --out, or inside it, is refused naming it (it read as a missing shard)', async () => {
    const dir = await setup();
    await runShards(dir, 2);
    const shards = join(dir, 'shards');
    for (const input of [shards, join(shards, 'wirecheck-shard-1')]) {
      const run = await cli(['merge-reports', '--out', shards, input]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `WC_MERGE: ${input} is in --out ${shards}, which is written and never read back`,
      );
    }
  });

  test('a shard whose target could not run makes the merge exit 2, naming it', async () => {
    const dir = await setup();
    await runShards(dir, 2);
    const second = join(dir, 'shards', 'wirecheck-shard-2', 'results.json');
    const result = SuiteResult.parse(JSON.parse(await readFile(second, 'utf8')));
    const error = { code: 'WC_TARGET_UNAVAILABLE', message: 'the client command exited 127' };
    await writeFile(second, JSON.stringify({ ...result, checks: [], error }));
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('wirecheck: WC_TARGET_UNAVAILABLE: suite fake: the client command exited 127\n');
    const merged = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'merged', 'results.json'), 'utf8')));
    expect(merged.error).toEqual(error);
  });

  test('the output directory is not read back as an input', async () => {
    const dir = await setup();
    await runShards(dir, 2);
    const out = join(dir, 'shards', 'merged');
    expect((await cli(['merge-reports', '--out', out, join(dir, 'shards')])).code).toBe(1);
    const again = await cli(['merge-reports', '--out', out, join(dir, 'shards')]);
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain('merged 2 files');
  });
});
