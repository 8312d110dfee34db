import { afterEach, expect, test } from 'vitest';
import { cli, fakeEntry, fakeSuite, registerAll } from './fake-suites.js';

// A value option given twice kept only the last value: a typo in the first `--only` was
// dropped without a word and the run passed. `--only` adds up now; the others are refused.

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

function register() {
  const { suite, ran } = fakeSuite('fake', [
    { id: 'fake.a', outcome: 'pass' },
    { id: 'fake.b', outcome: 'pass' },
    { id: 'fake.c', outcome: 'pass' },
  ]);
  cleanup.push(registerAll(fakeEntry(suite)));
  return ran;
}

test('--only given twice runs the checks of both; a typo in either is an error, not dropped', async () => {
  const ran = register();
  const both = await cli([
    'test',
    'fake',
    '--fake-url',
    'http://127.0.0.1:9',
    '--only',
    'fake.a',
    '--only',
    'fake.c',
  ]);
  expect(both.code).toBe(0);
  expect(ran.map((r) => r.id).sort()).toEqual(['fake.a', 'fake.c']);
  const typo = await cli([
    'test',
    'fake',
    '--fake-url',
    'http://127.0.0.1:9',
    '--only',
    'fake.nosuch',
    '--only',
    'fake.a',
  ]);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain('WC_NO_CHECKS_SELECTED: --only fake.nosuch matches no check');
});

test.each([
  [['--seed', '1', '--seed', '2'], '--seed'],
  [['--fake-url', 'http://127.0.0.1:8'], '--fake-url'],
  [['--jobs', '1', '--jobs', '2'], '--jobs'],
])('a value option given twice (%j) is bad usage naming it, and nothing runs', async (extra, flag) => {
  const ran = register();
  const run = await cli(['test', 'fake', '--fake-url', 'http://127.0.0.1:9', ...extra]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`wirecheck: WC_USAGE: ${flag} is given twice`);
  expect(ran).toEqual([]);
});
