import { describe, expect, test } from 'vitest';
import {
  applyBaseline,
  assertBaselineNamesKnownChecks,
  baselineMarkOf,
  failsRun,
  parseBaseline,
  verdictOf,
} from '../../src/harness/baseline.js';
import { WirecheckError } from '../../src/harness/errors.js';
import { exitCodeOf } from '../../src/harness/results.js';
import { check, mixedResult, suiteResult } from '../reporters/fixtures.js';

const FILE = `# expected failures of our runner
demo:demo.a.fail   sandbox kills only the direct child (TICKET-12)

demo:demo.a.pass\tfixed upstream, not yet released
`;

describe('baseline file format', () => {
  test('one "suite:check-id  reason" per line; blank lines and # comments are ignored', () => {
    expect(parseBaseline(FILE, 'b.txt')).toEqual({
      source: 'b.txt',
      entries: [
        {
          suite: 'demo',
          id: 'demo.a.fail',
          reason: 'sandbox kills only the direct child (TICKET-12)',
          line: 2,
        },
        { suite: 'demo', id: 'demo.a.pass', reason: 'fixed upstream, not yet released', line: 4 },
      ],
    });
    expect(parseBaseline('', 'empty').entries).toEqual([]);
    expect(parseBaseline('demo:x  why\r\n', 'crlf').entries).toHaveLength(1);
  });

  test('a line without a reason, without "suite:", or listed twice is an error naming file and line', () => {
    const error = (text: string) => {
      try {
        parseBaseline(text, 'b.txt');
      } catch (e) {
        expect(e).toBeInstanceOf(WirecheckError);
        expect((e as WirecheckError).code).toBe('WC_BASELINE');
        expect((e as WirecheckError).exitCode).toBe(2);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    expect(error('demo:demo.a.fail')).toMatch(
      /^baseline b\.txt:1: expected "suite:check-id {2}reason".*a reason/,
    );
    expect(error('\ndemo.a.fail  no suite')).toMatch(
      /^baseline b\.txt:2: expected "suite:check-id {2}reason", got/,
    );
    expect(error(':demo.a.fail  empty suite')).toContain('b.txt:1');
    expect(error('demo:a  one\ndemo:a  two')).toBe('baseline b.txt:2: demo:a is already listed on line 1');
  });

  test('an entry naming an unknown suite or check is an error telling to remove it', () => {
    const suites = [{ name: 'demo', checks: [{ id: 'demo.a.fail' }] }];
    expect(() =>
      assertBaselineNamesKnownChecks(parseBaseline('demo:demo.a.fail  ok', 'b'), suites),
    ).not.toThrow();
    expect(() => assertBaselineNamesKnownChecks(parseBaseline('demo:demo.gone  old', 'b'), suites)).toThrow(
      'baseline b:1: suite demo has no check demo.gone: remove the entry',
    );
    expect(() => assertBaselineNamesKnownChecks(parseBaseline('nope:x  old', 'b'), suites)).toThrow(
      'baseline b:1: no suite named "nope" (suites: demo)',
    );
  });
});

describe('baseline verdict', () => {
  const baseline = parseBaseline(FILE, 'b.txt');

  test('a listed failure is an expected failure and does not fail the run; the real status is kept', () => {
    const result = applyBaseline(
      suiteResult('demo', [check({ id: 'demo.a.fail', status: 'fail' })]),
      baseline,
      false,
    );
    expect(result.checks[0]).toMatchObject({
      status: 'fail',
      baseline: { status: 'expected-failure', reason: 'sandbox kills only the direct child (TICKET-12)' },
    });
    expect(result.summary.failed).toBe(1);
    expect(verdictOf([result], false)).toBe(0);
  });

  test('an unlisted failure fails the run', () => {
    const result = applyBaseline(mixedResult(), parseBaseline('demo:demo.a.pass  x', 'b'), false);
    expect(verdictOf([result], false)).toBe(1);
  });

  test('a listed check that passes now is stale and fails the run', () => {
    const result = applyBaseline(
      suiteResult('demo', [check({ id: 'demo.a.pass', status: 'pass' })]),
      baseline,
      false,
    );
    expect(result.checks[0]?.baseline).toEqual({
      status: 'stale',
      reason: 'fixed upstream, not yet released',
    });
    expect(verdictOf([result], false)).toBe(1);
  });

  test('a listed warning is stale, except under --strict where it is an expected failure', () => {
    const warn = { suite: 'demo', id: 'demo.a.pass', status: 'warn' as const };
    expect(baselineMarkOf(warn, baseline, false)?.status).toBe('stale');
    expect(baselineMarkOf(warn, baseline, true)?.status).toBe('expected-failure');
  });

  test('a listed check that was skipped proved nothing and is left unmarked', () => {
    expect(
      baselineMarkOf({ suite: 'demo', id: 'demo.a.fail', status: 'skip' }, baseline, false),
    ).toBeUndefined();
  });

  test('a check of another suite with the same id is not matched', () => {
    expect(
      baselineMarkOf({ suite: 'other', id: 'demo.a.fail', status: 'fail' }, baseline, false),
    ).toBeUndefined();
  });

  test('without a baseline the verdict is the plain exit status', () => {
    for (const strict of [false, true]) {
      expect(verdictOf([mixedResult()], strict)).toBe(exitCodeOf([mixedResult()], strict));
      const clean = suiteResult('demo', [check({ id: 'demo.w', status: 'warn' })]);
      expect(verdictOf([clean], strict)).toBe(exitCodeOf([clean], strict));
    }
    expect(failsRun({ status: 'warn' }, true)).toBe(true);
    expect(failsRun({ status: 'warn' }, false)).toBe(false);
  });
});
