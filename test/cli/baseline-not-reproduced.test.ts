import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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

/**
 * A property-based check whose seed missed the rare input that fails it (tool-server's
 * generated-arguments against a server wrong for one input in sixty) and a deterministic one,
 * both passing, both listed in the baseline.
 */
async function setup(listed: string[]): Promise<{ dir: string; baseline: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-not-reproduced-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const { suite } = fakeSuite('fake', [
    { id: 'fake.prop.generated', outcome: 'pass', propertyRuns: 5 },
    { id: 'fake.plain.fixed', outcome: 'pass' },
  ]);
  cleanup.push(registerAll(fakeEntry(suite)));
  const baseline = join(dir, 'baseline.txt');
  await writeFile(baseline, listed.map((id) => `fake:${id}  crashes on rare input (TICKET-9)\n`).join(''));
  return { dir, baseline };
}

describe('a baselined property-based check that passes with this seed', () => {
  test('is not reproduced: a warning naming the seed, and the run does not fail for it', async () => {
    const { dir, baseline } = await setup(['fake.prop.generated']);
    const out = join(dir, 'report');
    const args = ['test', 'fake', ...URL_ARGS, '--seed', '2', '--baseline', baseline, '--report-dir', out];
    for (const strict of [false, true]) {
      const run = await cli(strict ? [...args, '--strict'] : args);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('NOT REPRODUCED  fake.prop.generated');
      expect(run.stdout).toContain(
        'warning: 1 expected failure not reproduced with seed 2 (fake:fake.prop.generated)',
      );
      expect(run.stdout).toContain(
        'the entry is stale only if the check also passes with the seed it failed with',
      );
      expect(run.stdout).not.toContain('STALE');
      expect(lastLine(run.stdout)).toBe('2 passed, 0 failed, 0 warned, 0 skipped');
    }
    const result = SuiteResult.parse(JSON.parse(await readFile(join(out, 'results.json'), 'utf8')));
    expect(result.checks.find((c) => c.id === 'fake.prop.generated')?.baseline).toEqual({
      status: 'not-reproduced',
      reason: 'crashes on rare input (TICKET-9)',
    });
    const junit = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(junit).not.toContain('<failure');
    expect(junit).toContain("not reproduced with this run's seed");
  });

  test('a deterministic check that passes under its entry is still stale and fails the run', async () => {
    const { baseline } = await setup(['fake.plain.fixed']);
    const run = await cli(['test', 'fake', ...URL_ARGS, '--seed', '2', '--baseline', baseline]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('STALE  fake.plain.fixed');
    expect(run.stdout).toContain(
      `baseline ${baseline}: remove the stale entry fake:fake.plain.fixed (line 1)`,
    );
  });
});
