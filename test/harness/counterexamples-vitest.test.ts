import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { formatCounterexample } from '../../src/fixtures/counterexample.js';
import { type Check, CheckFailure, type Suite } from '../../src/harness/check.js';
import { counterexampleFixture } from '../../src/harness/counterexamples.js';
import { checkProperty } from '../../src/harness/property.js';
import { describeSuite } from '../../src/testing/vitest.js';

// describeSuite chooses its tests while this file loads, so the fixture is written first.
const dir = mkdtempSync(join(tmpdir(), 'wirecheck-cx-vitest-'));
const file = join(dir, 'vx.numbers.small.json');
const SAVED = 4242;
writeFileSync(
  file,
  formatCounterexample(
    counterexampleFixture(
      {
        suite: 'vx',
        check: 'vx.numbers.small',
        seed: 11,
        runs: 50,
        full: false,
        target: 'fixed',
        targetArgs: [],
        message: 'too big',
        // A path no search produced: the saved JSON value is the case that runs.
        property: {
          fastCheck: { seed: 11, path: '0', property: 0 },
          json: { value: SAVED },
          text: '4242',
          replayed: false,
        },
      },
      file,
    ),
  ),
);

const seen: { id: string; value: number; seed: number }[] = [];
function check(id: string): Check<object> {
  return {
    id,
    clause: 'Events rule 1',
    description: id,
    level: 'must',
    basis: 'spec',
    rule: 'A rule of a test suite, stated for every target.',
    async run(_ctx, env) {
      await checkProperty(env, fc.nat(), async (value) => {
        seen.push({ id, value, seed: env.seed });
        if (value > 10_000) throw new CheckFailure('too big');
      });
    },
  };
}
const suite: Suite<null, object> = {
  name: 'vx',
  description: 'a suite for the vitest replay',
  checks: [check('vx.numbers.small'), check('vx.numbers.other')],
  describeTarget: () => 'fixed',
  targetArgs: () => [],
  async open() {
    return { close: async () => {} };
  },
};

describeSuite(suite, null, { replay: file, title: 'wirecheck/vitest describeSuite with replay' });

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  // Only the fixture's check ran, once, on the saved value, with the fixture's seed.
  expect(seen).toEqual([{ id: 'vx.numbers.small', value: SAVED, seed: 11 }]);
});

describe('describeSuite({ replay }) refuses what the fixture fixes', () => {
  test('with only', () => {
    expect(() => describeSuite(suite, null, { replay: file, only: ['vx.'] })).toThrow(
      /--replay runs the saved case .* leave out --only/,
    );
  });

  test('a counterexample of another suite', () => {
    expect(() => describeSuite({ ...suite, name: 'other' }, null, { replay: file })).toThrow(
      /is a counterexample of suite vx \(check vx.numbers.small\), not of suite other/,
    );
  });
});
