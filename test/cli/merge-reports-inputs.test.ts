import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { RESULTS_MAX_BYTES } from '../../src/cli/merge-reports.js';
import { SuiteResult } from '../../src/harness/results.js';
import { cli, fakeEntry, fakeSuite, registerAll } from './fake-suites.js';

// Root lists a chmod 000 directory all the same: a directory that cannot be listed is made so here.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const readdir = ((path: Parameters<typeof actual.readdir>[0], options?: unknown) =>
    String(path).endsWith('unlistable')
      ? Promise.reject(
          Object.assign(new Error(`EACCES: permission denied, scandir '${String(path)}'`), {
            code: 'EACCES',
          }),
        )
      : (actual.readdir as (p: unknown, o?: unknown) => Promise<unknown>)(
          path,
          options,
        )) as typeof actual.readdir;
  return { ...actual, readdir, default: { ...actual, readdir } };
});

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

const URL_ARGS = ['--fake-url', 'http://127.0.0.1:9'];
const IDS = ['fake.a.one', 'fake.a.two', 'fake.b.one', 'fake.c.two', 'fake.d.one', 'fake.e.one'];

async function setup(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-merge-inputs-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const { suite } = fakeSuite(
    'fake',
    IDS.map((id) => ({ id, outcome: 'pass' as const })),
  );
  cleanup.push(registerAll(fakeEntry(suite)));
  return dir;
}

/** Shard `index`/2 of the fake suite, with `extra` options; its results.json. */
async function runShard(dir: string, index: number, extra: string[] = []): Promise<string> {
  const out = join(dir, 'shards', `shard-${index}`);
  const run = await cli([
    'test',
    'fake',
    ...URL_ARGS,
    '--seed',
    '5',
    '--shard',
    `${index}/2`,
    '--report-dir',
    out,
    ...extra,
  ]);
  expect(run.code).toBe(0);
  return join(out, 'results.json');
}

async function readResult(file: string): Promise<SuiteResult> {
  return SuiteResult.parse(JSON.parse(await readFile(file, 'utf8')));
}

describe('merge-reports refuses shards that selected different checks', () => {
  test('a shard run with --only merged with a whole shard: WC_MERGE naming both, exit 2', async () => {
    const dir = await setup();
    const first = await runShard(dir, 1);
    const second = await readResult(await runShard(dir, 2));
    const only = second.checks[0]?.id ?? '';
    const narrowed = await runShard(dir, 2, ['--only', only]);
    expect((await readResult(first)).selection).toEqual({ full: false });
    expect((await readResult(narrowed)).selection).toEqual({ only: [only], full: false });
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WC_MERGE');
    expect(run.stderr).toContain(`the selection "--only ${only}" in ${narrowed}`);
    expect(run.stderr).toContain(`"the quick tier (no --only, no --full)" in ${first}`);
  });

  test('files that do not record their selection are checked against the shard of each check', async () => {
    const dir = await setup();
    const files = [await runShard(dir, 1), await runShard(dir, 2)];
    // An older results.json (no selection), and a check of shard 1 moved into shard 2's file.
    const [one, two] = await Promise.all(files.map(readResult));
    const moved = one!.checks[0]!;
    const { selection: _a, ...oldOne } = { ...one!, checks: one!.checks.slice(1) };
    const { selection: _b, ...oldTwo } = { ...two!, checks: [...two!.checks, moved] };
    await writeFile(files[0]!, JSON.stringify(oldOne));
    await writeFile(files[1]!, JSON.stringify(oldTwo));
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${files[1]} is shard 2/2 but has check ${moved.id}, which belongs to shard 1/2`,
    );
  });
});

describe('merge-reports and a shard stopped through the library', () => {
  test('an interrupt without a signal (an AbortSignal) does not exit 0, and says so', async () => {
    const dir = await setup();
    const files = [await runShard(dir, 1), await runShard(dir, 2)];
    const result = await readResult(files[1]!);
    const stop = { kind: 'interrupted' as const, message: 'the run was stopped' };
    const checks = result.checks.map((c, i) =>
      i === 0
        ? c
        : {
            ...c,
            status: 'skip' as const,
            skipKind: 'not-run' as const,
            message: `not run: ${stop.message}`,
          },
    );
    await writeFile(files[1]!, JSON.stringify({ ...result, checks, stopped: stop }));
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    // As SIGINT: the shard was stopped on purpose, as Ctrl-C stops a run.
    expect(run.code).toBe(130);
    expect(run.stderr).toBe(
      'wirecheck: suite fake: a shard stopped early (the run was stopped): the checks it did not run are not judged\n',
    );
  });
});

describe('merge-reports reads only regular files of a bounded size', () => {
  test('a FIFO named as results.json is refused at once, not waited on', async () => {
    const dir = await setup();
    const fifo = join(dir, 'results.json');
    execFileSync('mkfifo', [fifo]);
    const started = performance.now();
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), fifo]);
    // A FIFO nobody writes blocks its reader for ever: only that hang is the fault, and a bound
    // near the real time fails under load.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `wirecheck: WC_MERGE: cannot read ${fifo}: expected a regular file, found a FIFO\n`,
    );
  });

  test('a results.json past the cap is refused, naming the cap', async () => {
    const dir = await setup();
    const big = join(dir, 'results.json');
    await writeFile(big, '');
    // Sparse: the size is what is judged, before a byte is read.
    await truncate(big, RESULTS_MAX_BYTES + 1);
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), big]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `wirecheck: WC_MERGE: cannot read ${big}: it is at least 64 MiB, more than the 64 MiB a results.json may have\n`,
    );
  });

  test('texts past RESULT_TEXT_LIMITS in a shard are clipped again in the merged report', async () => {
    const dir = await setup();
    const files = [await runShard(dir, 1), await runShard(dir, 2)];
    const result = await readResult(files[0]!);
    const checks = result.checks.map((c, i) => (i === 0 ? { ...c, message: 'x'.repeat(100_000) } : c));
    await writeFile(files[0]!, JSON.stringify({ ...result, checks }));
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(0);
    const merged = await readResult(join(dir, 'merged', 'results.json'));
    const clipped = merged.checks.find((c) => c.id === checks[0]!.id)!;
    expect(clipped.message).toBe(`${'x'.repeat(4096)}... (100000 characters)`);
  });
});

describe('merge-reports and a directory it cannot list', () => {
  test('is a WC_MERGE naming the directory, not an internal error', async () => {
    const dir = await setup();
    const unlistable = join(dir, 'shards', 'unlistable');
    await mkdir(unlistable, { recursive: true });
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `wirecheck: WC_MERGE: cannot read directory ${unlistable}: EACCES: permission denied, scandir '${unlistable}'\n`,
    );
  });
});

describe("merge-reports names a shard's suite once", () => {
  test('the error of a shard whose target could not run', async () => {
    const dir = await setup();
    const files = [await runShard(dir, 1), await runShard(dir, 2)];
    const result = await readResult(files[1]!);
    const error = {
      code: 'WC_TARGET_UNAVAILABLE',
      message: 'suite fake: could not reach http://127.0.0.1:9',
    };
    await writeFile(
      files[1]!,
      JSON.stringify({
        ...result,
        checks: [],
        summary: { passed: 0, failed: 0, warned: 0, skipped: 0 },
        error,
      }),
    );
    const run = await cli(['merge-reports', '--out', join(dir, 'merged'), join(dir, 'shards')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'wirecheck: WC_TARGET_UNAVAILABLE: suite fake: could not reach http://127.0.0.1:9\n',
    );
  });
});
