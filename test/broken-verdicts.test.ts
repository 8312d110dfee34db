import { expect, test } from 'vitest';
import type { SuiteResult } from '../src/harness/results.js';
import { expectedVerdicts, statusById, verdictById } from './broken-verdicts.js';

const result = {
  checks: [
    { id: 's.a', status: 'pass' },
    { id: 's.b', status: 'skip', skipKind: 'not-exercised' },
    { id: 's.c', status: 'skip', skipKind: 'not-applicable' },
  ],
} as unknown as SuiteResult;

test('a verdict set names a skip by its kind, where a status set says only skip', () => {
  expect(statusById(result)).toEqual({ 's.a': 'pass', 's.b': 'skip', 's.c': 'skip' });
  expect(verdictById(result)).toEqual({ 's.a': 'pass', 's.b': 'not-exercised', 's.c': 'not-applicable' });
});

test("a broken case's skips are expected not exercised", () => {
  expect(expectedVerdicts({ skips: ['b'], passes: ['a'] }, 's')).toEqual({
    's.b': 'not-exercised',
    's.a': 'pass',
  });
});
