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

const IDS = ['alpha.a', 'alpha.b', 'alpha.c', 'alpha.d'];
const FOLDERS = ['alpha', 'alpha-stdio', 'alpha-streamable-http', 'beta'];

/** `alpha` with a reference and two other references (as the tool-server suite has), and `beta`. */
async function setup(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-all-variants-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const events: string[] = [];
  const alpha = fakeSuite(
    'alpha',
    IDS.map((id) => ({ id, outcome: 'pass' as const })),
  );
  const other = (label: string) => ({
    label,
    start: async () => ({ target: { url: `ref://alpha-${label}` }, close: async () => {} }),
  });
  const beta = fakeSuite('beta', [{ id: 'beta.a', outcome: 'pass' }]);
  cleanup.push(
    registerAll(
      {
        ...fakeEntry(alpha.suite, { url: 'ref://alpha', events }),
        otherReferences: [other('stdio'), other('streamable http')],
      },
      fakeEntry(beta.suite, { url: 'ref://beta', events }),
    ),
  );
  return dir;
}

async function read(dir: string, folder: string): Promise<SuiteResult> {
  return SuiteResult.parse(JSON.parse(await readFile(join(dir, folder, 'results.json'), 'utf8')));
}

async function all(dir: string, ...args: string[]) {
  const run = await cli(['all', '--seed', '5', '--jobs', '1', '--report-dir', dir, ...args]);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

describe('wirecheck all with a suite run over several references, then merge-reports', () => {
  test('each run has its folder and variant; the shards of all merge into one result per run', async () => {
    const dir = await setup();
    const shards = [join(dir, 'shards', '1'), join(dir, 'shards', '2')];
    await all(shards[0] as string, '--shard', '1/2');
    await all(shards[1] as string, '--shard', '2/2');
    for (const shard of shards) {
      expect((await readdir(shard)).filter((f) => !f.includes('.')).sort()).toEqual(FOLDERS);
      expect((await read(shard, 'alpha-stdio')).variant).toBe('stdio');
      expect((await read(shard, 'alpha')).variant).toBeUndefined();
    }
    const merged = join(dir, 'merged');
    const run = await cli(['merge-reports', '--out', merged, join(dir, 'shards')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('merged 8 files');
    expect(run.stdout).toContain('suite alpha (streamable-http): 4 passed');
    expect(lastLine(run.stdout)).toBe('13 passed, 0 failed, 0 warned, 0 skipped');
    expect((await readdir(merged)).filter((f) => !f.includes('.')).sort()).toEqual(FOLDERS);
    for (const [folder, variant] of [
      ['alpha', undefined],
      ['alpha-stdio', 'stdio'],
      ['alpha-streamable-http', 'streamable-http'],
    ] as const) {
      const r = await read(merged, folder);
      expect(r.variant).toBe(variant);
      expect(r.checks.map((c) => c.id)).toEqual(IDS);
      expect(r.shard).toBeUndefined();
    }
    const junit = await readFile(join(merged, 'junit.xml'), 'utf8');
    expect([...junit.matchAll(/<testsuite name="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'alpha',
      'alpha (stdio)',
      'alpha (streamable-http)',
      'beta',
    ]);
  });

  test('one unsharded all directory merges to itself', async () => {
    const dir = await setup();
    const whole = join(dir, 'whole');
    await all(whole);
    const merged = join(dir, 'merged');
    const run = await cli(['merge-reports', '--out', merged, whole]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const folder of FOLDERS) {
      // What a merge keeps of a run (its budget and jobs, per shard, it leaves out).
      const kept = ({ suite, variant, target, seed, runs, summary, checks, startedAt }: SuiteResult) => ({
        suite,
        variant,
        target,
        seed,
        runs,
        summary,
        checks,
        startedAt,
      });
      expect(kept(await read(merged, folder))).toEqual(kept(await read(whole, folder)));
    }
  });

  test('wirecheck test runs a suite once: no variant, its results at the top', async () => {
    const dir = await setup();
    const run = await cli(['test', 'alpha', '--fake-url', 'ref://x', '--report-dir', dir]);
    expect(run.code).toBe(0);
    const raw = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8'));
    expect(raw.suite).toBe('alpha');
    expect('variant' in raw).toBe(false);
  });
});
