import { describe, expect, test } from 'vitest';
import {
  formatCheck,
  formatSuiteSummary,
  formatTotals,
  shouldUseColor,
} from '../../src/reporters/console.js';
import { formatJunit } from '../../src/reporters/junit.js';
import { check, suiteResult } from './fixtures.js';

const plain = { color: false };

describe('console reporter: baseline marks', () => {
  const expected = check({
    id: 'demo.a.fail',
    status: 'fail',
    message: 'wrong order',
    baseline: { status: 'expected-failure', reason: 'upstream bug 12' },
  });
  const stale = check({
    id: 'demo.a.pass',
    status: 'pass',
    baseline: { status: 'stale', reason: 'was broken' },
  });

  test('a listed failure says "expected failure" and its reason, with the failure details', () => {
    const lines = formatCheck(expected, plain).split('\n');
    expect(lines[0]).toBe('  ~ EXPECTED FAILURE  demo.a.fail  12 ms');
    expect(lines).toContain('      baseline: upstream bug 12');
    expect(lines).toContain('      wrong order [Events rule 1]');
  });

  test('a stale entry says the check passes now and which entry to remove', () => {
    expect(formatCheck(stale, plain)).toBe(
      '  ✗ STALE  demo.a.pass  12 ms\n      listed in the baseline as an expected failure (was broken), but it passes now: remove the entry demo:demo.a.pass',
    );
  });

  test('totals: expected failures count as skipped, stale entries as failed, with a note for each', () => {
    const result = suiteResult('demo', [expected, stale, check({ id: 'demo.ok', status: 'pass' })]);
    expect(formatTotals([result], { strict: false }).split('\n')).toEqual([
      '1 expected failure (listed in the baseline; counted as skipped)',
      '1 stale baseline entry (the check passes now; counted as failed until removed from the baseline)',
      '1 passed, 1 failed, 0 warned, 1 skipped',
    ]);
    expect(formatSuiteSummary(result, plain)).toBe(
      'suite demo: 2 passed, 1 failed, 0 warned, 0 skipped (1 expected failure, 1 stale baseline entry) in 1.23 s (seed 42)',
    );
  });

  test('the suite summary names the shard of a sharded run', () => {
    const result = suiteResult('demo', [], { shard: { index: 2, count: 4 } });
    expect(formatSuiteSummary(result, plain)).toBe(
      'suite demo: 0 passed, 0 failed, 0 warned, 0 skipped in 1.23 s (seed 42, shard 2/4)',
    );
  });
});

describe('colour: NO_COLOR and FORCE_COLOR', () => {
  test('FORCE_COLOR turns colour on for a pipe, unless it is 0 or false; NO_COLOR wins over it', () => {
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: '' })).toBe(true);
    expect(shouldUseColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(shouldUseColor({ isTTY: true }, { FORCE_COLOR: 'false' })).toBe(false);
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
  });
});

describe('junit.xml: baseline marks', () => {
  test('an expected failure is a skipped testcase (CI stays green), a stale entry a failure', () => {
    const result = suiteResult('demo', [
      check({
        id: 'demo.x',
        status: 'fail',
        message: 'bad',
        baseline: { status: 'expected-failure', reason: 'bug 12' },
      }),
      check({ id: 'demo.p', status: 'pass', baseline: { status: 'stale', reason: 'bug 9' } }),
      check({ id: 'demo.ok', status: 'pass' }),
    ]);
    const xml = formatJunit([result], { strict: false });
    expect(xml).toContain('<skipped message="expected failure (baseline): bug 12"/>');
    expect(xml).toMatch(
      /<failure message="stale baseline entry \(bug 9\): the check passes now; remove demo:demo\.p from the baseline" type="stale"\/>/,
    );
    expect(xml).toMatch(/<testsuite name="demo" tests="3" failures="1" errors="0" skipped="1"/);
    expect(xml).toMatch(/<testsuites name="wirecheck" tests="3" failures="1" errors="0" skipped="1"/);
  });
});
