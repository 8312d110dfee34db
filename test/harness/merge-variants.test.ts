import { describe, expect, test } from 'vitest';
import { type MergeInput, mergeResults, mergeSuite } from '../../src/harness/merge.js';
import type { SuiteResult } from '../../src/harness/results.js';
import { shardOfCheck } from '../../src/harness/shard.js';
import { check, suiteResult } from '../reporters/fixtures.js';
import { mergeError } from './merge-helpers.js';

const IDS = ['tool-server.a', 'tool-server.b', 'tool-server.c', 'tool-server.d'];
/** The tool-server suite's runs in one `wirecheck all`: the reference over SSE, then stdio and Streamable HTTP. */
const VARIANTS = [undefined, 'stdio', 'streamable-http'] as const;

/** The results a plan holding tool-server three times writes, as shard `index` of `count` (or whole). */
function planResults(dir: string, shard?: { index: number; count: number }): MergeInput[] {
  const ids = shard === undefined ? IDS : IDS.filter((id) => shardOfCheck(id, shard.count) === shard.index);
  return VARIANTS.map((variant) => ({
    source: `${dir}/tool-server${variant === undefined ? '' : `-${variant}`}/results.json`,
    result: suiteResult(
      'tool-server',
      ids.map((id) => check({ id, status: 'pass' })),
      {
        target: `reference ${variant ?? 'sse'}`,
        ...(variant === undefined ? {} : { variant }),
        ...(shard === undefined ? {} : { shard }),
      },
    ),
  }));
}

describe('merging the runs of a suite that one plan ran more than once', () => {
  test('the two shards of a plan holding tool-server three times merge into three results, one per variant', () => {
    const merged = mergeResults(
      [...planResults('shard-1', { index: 1, count: 2 }), ...planResults('shard-2', { index: 2, count: 2 })],
      () => IDS,
    );
    expect(merged).toHaveLength(3);
    expect(merged.map((r) => r.variant)).toEqual([...VARIANTS]);
    for (const r of merged) {
      expect(r.suite).toBe('tool-server');
      expect(r.checks.map((c) => c.id)).toEqual(IDS);
      expect(r.summary.passed).toBe(IDS.length);
      expect(r.shard).toBeUndefined();
      // Each variant's own target: the shards of one run agree, so no warning either.
      expect(r.target).toBe(`reference ${r.variant ?? 'sse'}`);
      expect(r.warnings).toBeUndefined();
    }
    expect('variant' in (merged[0] as SuiteResult)).toBe(false);
  });

  test('one unsharded all directory merges to itself', () => {
    const whole = planResults('reports/latest');
    const merged = mergeResults(whole, () => IDS);
    expect(merged).toEqual(whole.map((i) => i.result));
  });

  test('runs of different variants are refused as one, naming both', () => {
    const [sse, stdio] = planResults('latest') as [MergeInput, MergeInput];
    expect(mergeError(() => mergeSuite([sse, stdio]))).toBe(
      'latest/tool-server-stdio/results.json is suite tool-server (stdio), not tool-server as latest/tool-server/results.json',
    );
    const [, , http] = planResults('latest', { index: 1, count: 2 }) as [MergeInput, MergeInput, MergeInput];
    const [, stdio2] = planResults('other', { index: 2, count: 2 }) as [MergeInput, MergeInput];
    expect(mergeError(() => mergeSuite([http, stdio2]))).toContain(
      'is suite tool-server (stdio), not tool-server (streamable-http) as',
    );
  });

  test("a variant's missing shard is named with the variant", () => {
    const inputs = [
      ...planResults('shard-1', { index: 1, count: 2 }),
      ...planResults('shard-2', { index: 2, count: 2 }),
    ];
    const withoutOne = inputs.filter((i) => i.source !== 'shard-2/tool-server-stdio/results.json');
    expect(mergeError(() => mergeResults(withoutOne))).toBe(
      'suite tool-server (stdio): shard 2/2 missing: its checks would silently not count',
    );
  });
});
