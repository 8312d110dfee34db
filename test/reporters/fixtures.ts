import type { CheckResult, SuiteResult } from '../../src/harness/results.js';
import { summarize } from '../../src/harness/results.js';

export function check(overrides: Partial<CheckResult> & Pick<CheckResult, 'id' | 'status'>): CheckResult {
  return {
    suite: 'demo',
    clause: 'Events rule 1',
    description: 'frames arrive in order',
    level: overrides.status === 'warn' ? 'should' : 'must',
    message: '',
    durationMs: 12,
    ...overrides,
  };
}

export function suiteResult(
  suite: string,
  checks: CheckResult[],
  overrides: Partial<SuiteResult> = {},
): SuiteResult {
  return {
    suite,
    target: 'http://127.0.0.1:9',
    seed: 42,
    summary: summarize(checks),
    checks: checks.map((c) => ({ ...c, suite })),
    startedAt: '2026-11-21T10:00:00.000Z',
    durationMs: 1234,
    wirecheck: '0.1.0',
    ...overrides,
  };
}

/** One of each status, with the failing and warning ones carrying details. */
export function mixedResult(suite = 'demo'): SuiteResult {
  return suiteResult(suite, [
    check({ id: `${suite}.a.pass`, status: 'pass' }),
    check({
      id: `${suite}.a.fail`,
      status: 'fail',
      message: 'message_delta arrived before content_block_stop',
      expected: 'content_block_stop',
      actual: 'message_delta',
      reproduce: `npx wirecheck test ${suite} --seed 42 --only ${suite}.a.fail`,
    }),
    check({
      id: `${suite}.a.warn`,
      status: 'warn',
      message: 'no ping frame during a long pause',
      reproduce: `npx wirecheck test ${suite} --seed 42 --only ${suite}.a.warn`,
    }),
    check({ id: `${suite}.a.skip`, status: 'skip', message: 'target does not stream' }),
  ]);
}
