import { describe, expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';
import { formatResultsJson, formatSummaryJson, RunSummary } from '../../src/reporters/json.js';
import { mixedResult } from './fixtures.js';

describe('results.json and summary.json', () => {
  test('results.json is exactly the SuiteResult shape', () => {
    const result = mixedResult();
    const parsed: unknown = JSON.parse(formatResultsJson(result));
    expect(parsed).toEqual(result);
    expect(SuiteResult.parse(parsed)).toEqual(result);
    expect(parsed).toMatchObject({
      suite: 'demo',
      seed: 42,
      summary: { passed: 1, failed: 1, warned: 1, skipped: 1 },
    });
  });

  test('fields the schema does not name are dropped', () => {
    const withExtra = { ...mixedResult(), internal: 'x' } as SuiteResult;
    expect(JSON.parse(formatResultsJson(withExtra))).not.toHaveProperty('internal');
  });

  test('summary.json lists each suite and the totals', () => {
    const parsed = RunSummary.parse(JSON.parse(formatSummaryJson([mixedResult('a'), mixedResult('b')])));
    expect(parsed.suites.map((s) => s.suite)).toEqual(['a', 'b']);
    expect(parsed.suites[0]).toEqual({
      suite: 'a',
      target: 'http://127.0.0.1:9',
      summary: { passed: 1, failed: 1, warned: 1, skipped: 1 },
    });
    expect(parsed.summary).toEqual({ passed: 2, failed: 2, warned: 2, skipped: 2 });
  });
});
