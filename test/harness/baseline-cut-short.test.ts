import { describe, expect, test } from 'vitest';
import { runSuite } from '../../src/api.js';
import { baselineMarkOf, parseBaseline, remarkBaseline, verdictOf } from '../../src/harness/baseline.js';
import { type FakeCheck, fakeSuite } from '../cli/fake-suites.js';
import { check, suiteResult } from '../reporters/fixtures.js';

// A baseline entry excuses a check's own known fault. When the target goes away or the suite's
// budget runs out during that check, the rest of the suite is not run: excusing that failure
// would pass a run that judged almost nothing.

const TARGET = { url: 'http://127.0.0.1:9' };
const BASELINE = parseBaseline('fake:fake.a  known: wrong is_error on timeouts (TICKET-1)\n', 'b.txt');

function shape(result: Awaited<ReturnType<typeof runSuite>>) {
  return result.checks.map((c) => `${c.id}:${c.status}/${c.skipKind ?? ''}/${c.baseline?.status ?? ''}`);
}

describe('a baselined check during which the run is cut short', () => {
  for (const jobs of [1, 4]) {
    test(`the target going away fails the run (jobs ${jobs})`, async () => {
      const checks: FakeCheck[] = [
        { id: 'fake.a', outcome: 'gone' },
        { id: 'fake.b', outcome: 'pass' },
        { id: 'fake.c', outcome: 'pass' },
      ];
      const { suite } = fakeSuite('fake', checks, { concurrent: jobs > 1 });
      const result = await runSuite(suite, TARGET, { seed: 1, jobs, baseline: BASELINE });
      expect(result.stopped?.kind).toBe('target-gone');
      expect(shape(result)).toEqual(['fake.a:fail//', 'fake.b:skip/not-run/', 'fake.c:skip/not-run/']);
      expect(verdictOf([result], false)).toBe(1);
    });
  }

  test('the target going away in a baselined check that ran beside a failing one fails the run', async () => {
    const { suite } = fakeSuite(
      'fake',
      [
        { id: 'fake.a', outcome: 'gone', delayMs: 100 },
        { id: 'fake.b', outcome: 'pass' },
      ],
      { concurrent: true },
    );
    const result = await runSuite(suite, TARGET, { seed: 1, jobs: 2, baseline: BASELINE });
    expect(result.checks[0]).toMatchObject({ id: 'fake.a', status: 'fail', targetGone: true });
    expect(result.checks[0]?.baseline).toBeUndefined();
    expect(verdictOf([result], false)).toBe(1);
  });

  test("the suite's time budget running out fails the run, and the cut check says so", async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.a', outcome: 'hang', timeoutMs: 60_000 },
      { id: 'fake.b', outcome: 'pass' },
    ]);
    const started = performance.now();
    const result = await runSuite(suite, TARGET, { seed: 1, budgetMs: 200, baseline: BASELINE });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result.stopped?.kind).toBe('budget');
    expect(result.checks[0]).toMatchObject({ id: 'fake.a', status: 'fail', budgetUsedUp: true });
    expect(shape(result)).toEqual(['fake.a:fail//', 'fake.b:skip/not-run/']);
    expect(verdictOf([result], false)).toBe(1);
  });

  test('a check that fails on its own is still an expected failure', async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.a', outcome: 'fail' },
      { id: 'fake.b', outcome: 'pass' },
    ]);
    const result = await runSuite(suite, TARGET, { seed: 1, baseline: BASELINE });
    expect(result.checks[0]?.budgetUsedUp).toBeUndefined();
    expect(shape(result)).toEqual(['fake.a:fail//expected-failure', 'fake.b:pass//']);
    expect(verdictOf([result], false)).toBe(0);
  });

  test('baselineMarkOf and remarkBaseline leave a check that cut the run unmarked', () => {
    const at = { suite: 'fake', id: 'fake.a', status: 'fail' as const };
    expect(baselineMarkOf(at, BASELINE, false)?.status).toBe('expected-failure');
    expect(baselineMarkOf({ ...at, targetGone: true }, BASELINE, false)).toBeUndefined();
    expect(baselineMarkOf({ ...at, budgetUsedUp: true }, BASELINE, true)).toBeUndefined();
    // A results.json marked by a wirecheck without this rule is judged by it when merged.
    const old = suiteResult('fake', [
      check({
        id: 'fake.a',
        status: 'fail',
        targetGone: true,
        baseline: { status: 'expected-failure', reason: 'r' },
      }),
    ]);
    const remarked = remarkBaseline(old, false);
    expect(remarked.checks[0]?.baseline).toBeUndefined();
    expect(verdictOf([remarked], false)).toBe(1);
  });
});

test('a budget that ran out between two checks, none failed, fails the run: the rest was not judged', () => {
  const stopped = { kind: 'budget' as const, message: "the suite's time budget was used up" };
  const notRun = check({ id: 'demo.b', status: 'skip', skipKind: 'not-run' });
  const cut = suiteResult('demo', [check({ id: 'demo.a', status: 'pass' }), notRun], { stopped });
  expect(verdictOf([cut], false)).toBe(1);
  // Every check ran (the budget ran out as the last one ended): nothing was left unjudged.
  expect(
    verdictOf([suiteResult('demo', [check({ id: 'demo.a', status: 'pass' })], { stopped })], false),
  ).toBe(0);
});
