import { describe, expect, test } from 'vitest';
import type { CheckResult, RunStop, SuiteResult } from '../../src/harness/results.js';
import { formatTotals } from '../../src/reporters/console.js';
import { formatJunit } from '../../src/reporters/junit.js';
import { check, suiteResult } from './fixtures.js';
import { xmlProblems } from './xml-wellformed.js';

// A CI test publisher shows junit.xml's counts, not its properties: a run that exits non-zero
// because it was stopped before judging the suite must not read `failures="0" errors="0"`.

function stoppedRun(stop: RunStop, checks: CheckResult[]): SuiteResult {
  return suiteResult('demo', checks, { stopped: stop });
}

const passed = () => check({ id: 'demo.a', status: 'pass' });
const notRun = (stop: RunStop, id = 'demo.b') =>
  check({ id, status: 'skip', skipKind: 'not-run', message: `not run: ${stop.message}` });

const HARNESS: RunStop = {
  kind: 'harness-error',
  message:
    'wirecheck failed during demo.b (a bug of wirecheck or of a suite): TypeError: x is not a function',
};
const SIGINT: RunStop = { kind: 'interrupted', signal: 'SIGINT', message: 'interrupted by SIGINT' };
const BUDGET: RunStop = { kind: 'budget', message: "the suite's time budget of 2 s was used up" };

describe('junit.xml: a run stopped before it judged the suite', () => {
  for (const [stop, what] of [
    [HARNESS, 'a harness error'],
    [SIGINT, 'an interrupt'],
    [BUDGET, 'a budget used up between two checks'],
  ] as const) {
    test(`${what} is one <error> testcase NAME (stopped), counted in tests and errors`, () => {
      const xml = formatJunit([stoppedRun(stop, [passed(), notRun(stop), notRun(stop, 'demo.c')])], {
        strict: false,
      });
      expect(xmlProblems(xml)).toEqual([]);
      expect(xml).toMatch(/<testsuites name="wirecheck" tests="4" failures="0" errors="1" skipped="2"/);
      expect(xml).toMatch(/<testsuite name="demo" tests="4" failures="0" errors="1" skipped="2"/);
      expect(xml).toContain('<testcase classname="demo" name="demo (stopped)" time="0.000">');
      const type = stop.kind;
      expect(xml).toContain(`<error message="${stop.message.replace(/'/g, '&apos;')}" type="${type}">`);
      expect(xml).toContain('2 of 3 checks were not run');
      // The property stays for the tools that read it.
      expect(xml).toContain(`<property name="stopped" value="${stop.message.replace(/'/g, '&apos;')}"/>`);
    });
  }

  test('the errors add up over runs, beside a target that could not run', () => {
    const unavailable = suiteResult('other', [], {
      error: { code: 'WC_TARGET_UNAVAILABLE', message: 'the server never answered' },
    });
    const xml = formatJunit([stoppedRun(SIGINT, [passed(), notRun(SIGINT)]), unavailable], { strict: false });
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml).toMatch(/<testsuites name="wirecheck" tests="4" failures="0" errors="2" skipped="1"/);
  });

  test('a stop whose check failed already (the target went away, a check cut by the budget) adds no error', () => {
    const gone: RunStop = { kind: 'target-gone', message: 'the target stopped during demo.a: exited 1' };
    const cut = check({ id: 'demo.a', status: 'fail', message: 'budget used up while this check ran' });
    for (const [stop, first] of [
      [gone, check({ id: 'demo.a', status: 'fail', targetGone: true, message: 'exited 1' })],
      [BUDGET, { ...cut, budgetUsedUp: true }],
    ] as const) {
      const xml = formatJunit([stoppedRun(stop, [first])], { strict: false });
      expect(xml).toMatch(/<testsuite name="demo" tests="1" failures="1" errors="0"/);
      expect(xml).not.toContain('(stopped)');
    }
  });

  test('a budget stop that left no check not run adds no error', () => {
    const xml = formatJunit([stoppedRun(BUDGET, [passed()])], { strict: false });
    expect(xml).toMatch(/<testsuite name="demo" tests="1" failures="0" errors="0"/);
  });

  test('the stop message is escaped', () => {
    const nasty: RunStop = { kind: 'harness-error', message: 'a <b> & "c"\n\u0001' };
    const xml = formatJunit([stoppedRun(nasty, [notRun(nasty)])], { strict: false });
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml).toContain('type="harness-error"');
  });
});

describe('console totals: a run cut short by the budget with no check failed', () => {
  test('a line before the totals says the suite was cut short and that this fails the run', () => {
    const totals = formatTotals([stoppedRun(BUDGET, [passed(), notRun(BUDGET)])], { strict: false });
    const lines = totals.split('\n');
    expect(lines.at(-1)).toBe('1 passed, 0 failed, 0 warned, 1 skipped');
    expect(lines).toContain(
      "suite demo was cut short (the suite's time budget of 2 s was used up): 1 of its 2 checks not run, which fails the run",
    );
  });

  test('no such line for a run that finished, or whose budget cut a check (that check failed)', () => {
    const cut = { ...check({ id: 'demo.a', status: 'fail' as const }), budgetUsedUp: true };
    for (const r of [
      suiteResult('demo', [passed()]),
      stoppedRun(BUDGET, [passed()]),
      stoppedRun(BUDGET, [cut, notRun(BUDGET)]),
    ]) {
      expect(formatTotals([r], { strict: false })).not.toContain('cut short');
    }
  });
});
