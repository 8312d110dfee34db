import { expect, test } from 'vitest';
import { BASES, MUST_BASES } from '../../src/harness/check.js';
import { SUITES } from '../../src/suites/registry.js';

// docs/levels.md: every check of every suite states its rule and basis, and its level follows from the basis.
const checks = SUITES.flatMap((entry) =>
  entry.suite.checks.map((check) => ({ suite: entry.suite.name, check })),
);

test('the registry has checks to hold to the policy', () => {
  expect(checks.length).toBeGreaterThan(100);
});

test('check ids are unique across every suite', () => {
  const ids = checks.map(({ check }) => check.id);
  const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
  expect(repeated).toEqual([]);
});

test('every check has a basis, and must only with a must basis, should only with the others', () => {
  const wrong = checks
    .filter(({ check }) => {
      if (!BASES.includes(check.basis)) return true;
      const mustBasis = MUST_BASES.includes(check.basis);
      return check.level !== (mustBasis ? 'must' : 'should');
    })
    .map(({ check }) => `${check.id}: level ${check.level}, basis ${String(check.basis)}`);
  expect(wrong).toEqual([]);
});

test('every rule is a non-empty sentence', () => {
  const wrong = checks
    .filter(({ check }) => {
      const rule = typeof check.rule === 'string' ? check.rule.trim() : '';
      // A sentence: starts with a capital letter (or a quoted name), has several words, ends with a full stop.
      return !/^["'`A-Z(]/.test(rule) || rule.split(/\s+/).length < 5 || !/[.!?)"'`]$/.test(rule);
    })
    .map(({ check }) => `${check.id}: ${JSON.stringify(check.rule)}`);
  expect(wrong).toEqual([]);
});
