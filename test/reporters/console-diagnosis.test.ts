import { describe, expect, test } from 'vitest';
import type { CheckResult } from '../../src/harness/results.js';
import {
  createSuitePrinter,
  formatCheck,
  formatConsoleReport,
  formatSuiteHeader,
  formatSuiteSummary,
  formatTotals,
} from '../../src/reporters/console.js';
import { causeGroups, notRunReason } from '../../src/reporters/grouping.js';
import { check, suiteResult } from './fixtures.js';

const plain = { color: false };
const CAUSE =
  "the client exited 1 before sending a request; stderr:\nError: Cannot find module '/nonexistent.js'";

function failing(id: string, sharedCause?: string): CheckResult {
  return check({
    id,
    status: 'fail',
    message: `${id}: nothing to judge`,
    expected: 'a request',
    actual: 'none',
    reproduce: `npx wirecheck test demo --seed 1 --only ${id}`,
    ...(sharedCause === undefined ? {} : { sharedCause }),
  });
}

/** Everything the printer prints for a suite, as the CLI prints it. */
function printed(checks: CheckResult[], overrides: Parameters<typeof suiteResult>[2] = {}) {
  const result = suiteResult('demo', checks, overrides);
  const printer = createSuitePrinter(plain, {
    verbose: true,
    ...(result.runs === undefined ? {} : { askedRuns: result.runs }),
  });
  const now = result.checks.map((c) => printer.add(c)).filter((t) => t !== undefined);
  return [...now, ...printer.end(result)].join('\n');
}

describe('console: the kind of a skip, the tier, the runs', () => {
  test('not exercised and not run are told apart from a plain skip', () => {
    expect(
      formatCheck(
        check({ id: 'demo.na', status: 'skip', skipKind: 'not-applicable', message: 'SSE only' }),
        plain,
      ),
    ).toBe('  - SKIP  demo.na  12 ms\n      SSE only');
    expect(
      formatCheck(
        check({ id: 'demo.ne', status: 'skip', skipKind: 'not-exercised', message: 'no request' }),
        plain,
      ),
    ).toBe('  ? NOT EXERCISED  demo.ne  12 ms\n      no request');
    expect(
      formatCheck(
        check({ id: 'demo.nr', status: 'skip', skipKind: 'not-run', message: 'not run: x' }),
        plain,
      ),
    ).toMatch(/^ {2}· NOT RUN {2}demo\.nr/);
  });

  test('a full-tier check says [full]; a check that capped its runs says how many of how many', () => {
    expect(formatCheck(check({ id: 'demo.slow', status: 'pass', tier: 'full' }), plain)).toBe(
      '  ✓ PASS  demo.slow  12 ms  [full]',
    );
    expect(formatCheck(check({ id: 'demo.p', status: 'pass', runs: 15 }), plain, { askedRuns: 100 })).toBe(
      '  ✓ PASS  demo.p  12 ms  [15 runs per property, capped from 100]',
    );
    expect(formatCheck(check({ id: 'demo.p', status: 'pass', runs: 100 }), plain, { askedRuns: 100 })).toBe(
      '  ✓ PASS  demo.p  12 ms',
    );
  });

  test('the header names the tiers that really run', () => {
    const base = { suite: 'demo', target: 'x', seed: 1, runs: 100, full: false };
    expect(formatSuiteHeader({ ...base, tiers: ['full'] }, plain)).toBe(
      'demo against x (seed 1, 100 runs per property, full tier)',
    );
    expect(formatSuiteHeader({ ...base, full: true, tiers: ['quick', 'full'] }, plain)).toContain(
      'quick and full tiers',
    );
    expect(formatSuiteHeader({ ...base, tiers: ['quick'] }, plain)).toContain('quick tier)');
  });

  test('the suite ends with the checks that capped their runs, named once', () => {
    const text = printed(
      [
        check({ id: 'demo.a', status: 'pass', runs: 15 }),
        check({ id: 'demo.b', status: 'pass', runs: 50 }),
        check({ id: 'demo.c', status: 'pass', runs: 100 }),
      ],
      { runs: 100 },
    );
    expect(text).toContain(
      '  property runs: 2 checks cap their runs below the 100 asked (15 to 50 per property; each run starts the target)',
    );
    expect(text).toContain('      checks: demo.a, demo.b');
  });

  test('the summary counts skips by kind, and the totals say what they mean', () => {
    const result = suiteResult('demo', [
      check({ id: 'demo.a', status: 'pass' }),
      check({ id: 'demo.b', status: 'skip', skipKind: 'not-exercised' }),
      check({ id: 'demo.c', status: 'skip', skipKind: 'not-run' }),
      check({ id: 'demo.d', status: 'skip', skipKind: 'not-applicable' }),
    ]);
    expect(formatSuiteSummary(result, plain)).toMatch(
      /^suite demo: 1 passed, 0 failed, 0 warned, 3 skipped \(1 not exercised, 1 not run\) in /,
    );
    expect(formatTotals([result], { strict: false }).split('\n')).toEqual([
      '3 skipped (1 not exercised, 1 not run); not exercised: the check ran, but the target gave it nothing to judge; not run: the run stopped before the check',
      '1 passed, 0 failed, 0 warned, 3 skipped',
    ]);
  });

  test('every failing label of a labelled property gets its own line', () => {
    const text = formatCheck(
      check({
        id: 'demo.invalid',
        status: 'fail',
        message: '2 labels fail: [missing model] got 500; [max_tokens 0] got 200',
        labels: [
          { label: 'missing model', message: 'got 500' },
          { label: 'max_tokens 0', message: 'got 200' },
        ],
      }),
      plain,
    );
    expect(text.split('\n').slice(1)).toEqual([
      '      2 labels fail [Events rule 1]',
      '      [missing model] got 500',
      '      [max_tokens 0] got 200',
    ]);
  });
});

describe('console: failures that share one cause', () => {
  test('27 failures of one cause print as one entry: the cause once, then the checks', () => {
    const ids = Array.from({ length: 27 }, (_, i) => `demo.check-${String(i).padStart(2, '0')}`);
    const text = printed([check({ id: 'demo.ok', status: 'pass' }), ...ids.map((id) => failing(id, CAUSE))]);
    expect(text).toContain(
      "  ✗ FAIL  27 checks failed for one cause: the client exited 1 before sending a request; stderr:\n      Error: Cannot find module '/nonexistent.js'",
    );
    expect(text.match(/Cannot find module/g)).toHaveLength(1);
    // The checks' expected and actual, the same for all 27: said once.
    expect(text.match(/expected: a request/g)).toHaveLength(1);
    expect(text.match(/actual: {3}none/g)).toHaveLength(1);
    for (const id of ids) expect(text).toContain(id);
    expect(text).toContain('reproduce one: npx wirecheck test demo --seed 1 --only demo.check-00');
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(110);
  });

  test('a group whose checks expected or saw different things names each pair with its checks', () => {
    const a = { ...failing('demo.a', CAUSE), expected: 'a request', actual: 'none' };
    const b = { ...failing('demo.b', CAUSE), expected: 'exit 0', actual: 'exit 1' };
    const c = { ...failing('demo.c', CAUSE), expected: 'a request', actual: 'none' };
    const text = printed([a, b, c]);
    expect(text).toContain(
      '      expected (demo.a, demo.c): a request\n      actual (demo.a, demo.c):   none',
    );
    expect(text).toContain('      expected (demo.b): exit 0\n      actual (demo.b):   exit 1');
    const many = Array.from({ length: 7 }, (_, i) => ({
      ...failing(`demo.m${i}`, CAUSE),
      actual: `value ${i}`,
    }));
    const capped = printed(many);
    expect(capped.match(/expected \(demo\.m\d\)/g)).toHaveLength(5);
    expect(capped).toContain(
      "(2 more expected/actual pairs: each check's own are in results.json and junit.xml)",
    );
  });

  test('a cause shared by one check only, and failures without a cause, print as they are', () => {
    const text = printed([failing('demo.a', 'only mine'), failing('demo.b')]);
    expect(text).toContain('  ✗ FAIL  demo.a');
    expect(text).toContain('  ✗ FAIL  demo.b');
    expect(text).toContain('expected: a request');
    expect(text).not.toContain('for one cause');
  });

  test('groups keep first-seen order and mixed statuses say so', () => {
    const warn = { ...failing('demo.w', 'B'), status: 'warn' as const };
    const groups = causeGroups([
      failing('demo.1', 'A'),
      warn,
      failing('demo.2', 'B'),
      failing('demo.3', 'A'),
    ]);
    expect(groups.map((g) => [g.cause, g.checks.map((c) => c.id)])).toEqual([
      ['A', ['demo.1', 'demo.3']],
      ['B', ['demo.w', 'demo.2']],
    ]);
    expect(printed([warn, failing('demo.2', 'B')])).toContain('2 checks failed or warned for one cause: B');
  });

  test('the checks not run print once, with the reason once', () => {
    const stopped = { kind: 'target-gone' as const, message: 'the target stopped during demo.b: exited 1' };
    const text = printed(
      [
        check({ id: 'demo.a', status: 'pass' }),
        check({
          id: 'demo.b',
          status: 'fail',
          message: 'exited 1',
          targetGone: true,
          sharedCause: 'exited 1',
        }),
        ...['demo.c', 'demo.d', 'demo.e'].map((id) =>
          check({ id, status: 'skip', skipKind: 'not-run', message: `not run: ${stopped.message}` }),
        ),
      ],
      { stopped },
    );
    expect(text.match(/the target stopped during demo\.b/g)).toHaveLength(1);
    // The cause is printed with the failure of demo.b; the not-run entry points at it.
    expect(text.match(/exited 1/g)).toHaveLength(1);
    expect(text).toContain(
      '  · NOT RUN  3 checks: the target stopped during demo.b (the cause is printed above)\n      checks: demo.c, demo.d, demo.e',
    );
    expect(
      notRunReason({
        checks: [check({ id: 'x', status: 'skip', skipKind: 'not-run', message: 'not run: why' })],
      }),
    ).toBe('why');
  });

  test('the whole report groups the same way', () => {
    const result = suiteResult('demo', [failing('demo.a', CAUSE), failing('demo.b', CAUSE)]);
    const text = formatConsoleReport([result], { color: false, strict: false });
    expect(text).toContain('2 checks failed for one cause');
    expect(text.trimEnd().split('\n').at(-1)).toBe('0 passed, 2 failed, 0 warned, 0 skipped');
  });
});
