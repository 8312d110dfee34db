import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, test } from 'vitest';
import { inCase, openRunner, stableRunnerText } from '../../../src/suites/runner/context.js';
import { toolUse } from '../../../src/suites/runner/lines.js';
import { newMarker } from '../../../src/suites/runner/processes.js';
import { runnerCommand, SEED } from './helpers.js';

// What a run makes at random (case folders, process markers, canaries) must not make two
// reports of one seed differ: determinism.test.ts compares whole reports of broken runners;
// these tests pin down each part.

const spec = { lines: [toolUse('true')], timeoutS: 10, budgetMs: 20_000 };

test('case directories are named after the check or shared session, whatever order they start in', async () => {
  const ctx = await openRunner({ runner: runnerCommand('conforming') }, {}, undefined, SEED);
  try {
    // Started out of the order of their names, and concurrently: a run-wide counter gave each
    // whatever number its turn drew.
    const [b, [a1, a2]] = await Promise.all([
      inCase('runner.x.b', () => ctx.run(spec)),
      inCase('runner.x.a', async () => [await ctx.run(spec), await ctx.run(spec)] as const),
    ]);
    // A shared session is named after its key, not after the check that asked first.
    const shared = await inCase('runner.x.c', () =>
      ctx.shared('some-session', undefined, () => ctx.run(spec)),
    );
    expect([b, a1, a2, shared].map((run) => basename(run.workdir))).toEqual([
      'runner.x.b',
      'runner.x.a',
      'runner.x.a-2',
      'some-session',
    ]);
    expect(stableRunnerText(`not in ${b.workdir}: no`)).toBe(
      `not in ${join(realpathSync(tmpdir()), 'wirecheck-runner-suite-XXXXXX', 'runner.x.b')}: no`,
    );
    // A quote clipped inside the folder's name (a runner's stderr, tail kept) loses its random part too.
    const clipped = `...${b.workdir.slice(b.workdir.indexOf('-suite-') + 3)}'`;
    expect(stableRunnerText(clipped)).toBe("...ite-XXXXXX/runner.x.b'");
  } finally {
    await ctx.close();
  }
}, 60_000);

test('the canaries follow the seed', async () => {
  const open = (seed: number) => openRunner({ runner: runnerCommand('conforming') }, {}, undefined, seed);
  const [first, again, other] = await Promise.all([open(SEED), open(SEED), open(SEED + 1)]);
  try {
    expect(again.canaries).toEqual(first.canaries);
    expect(other.canaries.value).not.toBe(first.canaries.value);
    expect(first.canaries.value).toMatch(/^wirecheck-canary-[0-9a-f]{12}$/);
  } finally {
    await Promise.all([first.close(), again.close(), other.close()]);
  }
}, 60_000);

test('markers stay unique to the case and the harness process; reports show their digits as a placeholder', () => {
  const [a, b] = [newMarker(311), newMarker(311)];
  expect(a.arg).not.toBe(b.arg);
  // The last 8 digits are this process's salt: another wirecheck run on the machine, with the
  // same seed, draws its own, so neither run's /proc scans take the other's sleeps.
  expect(a.arg.slice(-8)).toBe(b.arg.slice(-8));
  expect(stableRunnerText(`a job (\`${a.command}\`) still ran; ${b.command}`)).toBe(
    'a job (`sleep 311.000<12 digits>`) still ran; sleep 311.000<12 digits>',
  );
  expect(stableRunnerText(`${newMarker(0.5).command} &`)).toBe('sleep 0.500<12 digits> &');
  // Numbers that are not this process's markers are left as they are.
  const salt = a.arg.slice(-8);
  const other = `sleep 311.0001234${(Number(salt[0]) + 1) % 10}${salt.slice(1)}`;
  expect(stableRunnerText(other)).toBe(other);
  expect(stableRunnerText('took 1.000123456789012 s')).toBe('took 1.000123456789012 s');
});
