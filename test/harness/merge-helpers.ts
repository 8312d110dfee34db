import { expect } from 'vitest';
import { WirecheckError } from '../../src/harness/errors.js';
import type { MergeInput } from '../../src/harness/merge.js';
import type { SuiteResult } from '../../src/harness/results.js';
import { check, suiteResult } from '../reporters/fixtures.js';

/** Shard `index` of `count` of suite `demo`, holding `ids` (a check whose id ends in `bad` failed). */
export function shard(
  index: number,
  count: number,
  ids: string[],
  overrides: Partial<SuiteResult> = {},
): MergeInput {
  const result = suiteResult(
    'demo',
    ids.map((id) => check({ id, status: id.endsWith('bad') ? 'fail' : 'pass' })),
    { shard: { index, count }, ...overrides },
  );
  return { source: `shard-${index}/results.json`, result };
}

/** The message of the WC_MERGE error `run` throws (it must throw one). */
export function mergeError(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(WirecheckError);
    expect((e as WirecheckError).code).toBe('WC_MERGE');
    return (e as Error).message;
  }
  throw new Error('no error');
}
