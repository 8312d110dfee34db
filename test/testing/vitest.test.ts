import { afterAll, describe, expect, test } from 'vitest';
import { parseBaseline } from '../../src/harness/baseline.js';
import { describeSuite, testOutcomeOf } from '../../src/testing/vitest.js';
import { fakeSuite } from '../cli/fake-suites.js';
import { check } from '../reporters/fixtures.js';

describe('what a check result makes of its vitest test', () => {
  test('a failure fails with the message, expected/actual and the reproduce line', () => {
    const outcome = testOutcomeOf(
      check({
        id: 'demo.x',
        status: 'fail',
        message: 'bad order',
        expected: 'a',
        actual: 'b',
        reproduce: 'npx wirecheck test demo --only demo.x',
      }),
      false,
    );
    expect(outcome.kind).toBe('fail');
    const message = outcome.kind === 'fail' ? outcome.message : '';
    expect(message).toContain('bad order [Events rule 1]');
    expect(message).toContain('expected: a');
    expect(message).toContain('actual:   b');
    expect(message).toContain('reproduce: npx wirecheck test demo --only demo.x');
    expect(message).not.toContain('\u001b');
  });

  test('a warning passes with a note, and fails under strict', () => {
    const warn = check({ id: 'demo.w', status: 'warn', message: 'no ping' });
    expect(testOutcomeOf(warn, false)).toEqual({ kind: 'warn', note: 'warning: no ping [Events rule 1]' });
    expect(testOutcomeOf(warn, true).kind).toBe('fail');
  });

  test('a skip and an expected failure skip the test with the reason; a stale entry fails it', () => {
    expect(testOutcomeOf(check({ id: 'demo.s', status: 'skip', message: 'no stream' }), false)).toEqual({
      kind: 'skip',
      note: 'no stream',
    });
    const xfail = check({
      id: 'demo.f',
      status: 'fail',
      baseline: { status: 'expected-failure', reason: 'bug 12' },
    });
    expect(testOutcomeOf(xfail, false)).toEqual({
      kind: 'skip',
      note: 'expected failure (baseline): bug 12',
    });
    const stale = check({ id: 'demo.p', status: 'pass', baseline: { status: 'stale', reason: 'bug 12' } });
    expect(testOutcomeOf(stale, false).kind).toBe('fail');
    expect(
      testOutcomeOf(
        check({ id: 'demo.ne', status: 'skip', skipKind: 'not-exercised', message: 'no frame' }),
        false,
      ),
    ).toEqual({ kind: 'skip', note: 'not exercised: no frame' });
    expect(testOutcomeOf(check({ id: 'demo.ok', status: 'pass' }), false)).toEqual({ kind: 'pass' });
  });
});

// describeSuite itself, on a suite object: one test per selected check, one shared context. Its skip
// path (a skipped check, an expected failure of the baseline) is covered by testOutcomeOf above, so that
// this file registers no skipped test of its own.
const opened: string[] = [];
const { suite, ran } = fakeSuite('fake', [
  { id: 'fake.a.one', outcome: 'pass' },
  { id: 'fake.a.soft', outcome: 'fail', level: 'should' },
  { id: 'fake.b.known', outcome: 'fail' },
  { id: 'fake.b.fixed', outcome: 'pass' },
  { id: 'fake.c.not-selected', outcome: 'fail' },
]);
const counted = {
  ...suite,
  async open(target: { url: string }, env: Parameters<typeof suite.open>[1]) {
    opened.push('open');
    const ctx = await suite.open(target, env);
    return { ...ctx, close: async () => void opened.push('close') };
  },
};
describeSuite(
  counted,
  { url: 'http://127.0.0.1:9' },
  {
    seed: 77,
    only: ['fake.a.', 'fake.b.fixed'],
    baseline: parseBaseline('fake:fake.b.known  listed on purpose, not selected', 'inline'),
    title: 'describeSuite on a fake suite',
  },
);

afterAll(() => {
  // Runs after the describe block's own afterAll: the context was opened and closed once.
  expect(opened).toEqual(['open', 'close']);
  expect(ran.map((r) => [r.id, r.seed])).toEqual([
    ['fake.a.one', 77],
    ['fake.a.soft', 77],
    ['fake.b.fixed', 77],
  ]);
});
