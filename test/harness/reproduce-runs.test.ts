import { describe, expect, test } from 'vitest';
import { defaultRuns, reproduceLine, runSuite } from '../../src/harness/run-suite.js';
import { fakeSuite } from '../cli/fake-suites.js';

// fast-check draws its cases from the seed one after another: the case a failing property
// found at run 250 of 500 is reached again only with at least 250 runs, so a reproduce line
// without the run's --runs does not reproduce it.

const TARGET = { url: 'http://127.0.0.1:9' };

describe('the reproduce line keeps --runs', () => {
  test('when the runs differ from the tier default, and only then', () => {
    const line = (full: boolean, runs?: number) => reproduceLine('fake', [], 7, 'fake.a', full, runs);
    expect(line(false, 500)).toBe('npx wirecheck test fake --seed 7 --only fake.a --runs 500');
    expect(line(false, defaultRuns(false))).toBe('npx wirecheck test fake --seed 7 --only fake.a');
    expect(line(false)).toBe('npx wirecheck test fake --seed 7 --only fake.a');
    expect(line(true, 1000)).toBe('npx wirecheck test fake --seed 7 --only fake.a --full');
    expect(line(true, 100)).toBe('npx wirecheck test fake --seed 7 --only fake.a --full --runs 100');
  });

  test("a failed check of a run given --runs carries the run's runs", async () => {
    const { suite } = fakeSuite('fake', [{ id: 'fake.bad', outcome: 'fail' }]);
    const asked = await runSuite(suite, TARGET, { seed: 3, runs: 500 });
    expect(asked.checks[0]?.reproduce).toBe(
      'npx wirecheck test fake --fake-url http://127.0.0.1:9 --seed 3 --only fake.bad --runs 500',
    );
    const plain = await runSuite(suite, TARGET, { seed: 3 });
    expect(plain.checks[0]?.reproduce).toBe(
      'npx wirecheck test fake --fake-url http://127.0.0.1:9 --seed 3 --only fake.bad',
    );
  });
});
