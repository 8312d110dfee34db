import { describe, expect, test } from 'vitest';
import { mergeResults, mergeSuite } from '../../src/harness/merge.js';
import { shardOfCheck } from '../../src/harness/shard.js';
import { check, suiteResult } from '../reporters/fixtures.js';
import { mergeError, shard } from './merge-helpers.js';

describe('merging shard results', () => {
  test('the asked runs, and a shard that stopped early or could not run, carry into the merged result', () => {
    const stopped = {
      kind: 'interrupted' as const,
      signal: 'SIGTERM' as const,
      message: 'interrupted by SIGTERM',
    };
    const merged = mergeSuite([
      shard(1, 2, ['demo.a'], { runs: 25 }),
      shard(2, 2, ['demo.b'], { runs: 25, stopped }),
    ]);
    expect(merged.runs).toBe(25);
    expect(merged.stopped).toEqual(stopped);
    expect(merged.error).toBeUndefined();
    const error = { code: 'WC_TARGET_UNAVAILABLE', message: 'no answer' };
    expect(mergeSuite([shard(1, 2, []), shard(2, 2, [], { error })]).error).toEqual(error);
  });

  test("every shard's warnings (what it could not clean up) carry into the merged result", () => {
    const merged = mergeSuite([
      shard(1, 3, ['demo.a'], { warnings: ['the working directory /tmp/a could not be removed'] }),
      shard(2, 3, ['demo.b']),
      shard(3, 3, ['demo.c'], { warnings: ['closing the suite failed: EACCES'] }),
    ]);
    expect(merged.warnings).toEqual([
      'the working directory /tmp/a could not be removed',
      'closing the suite failed: EACCES',
    ]);
    expect('warnings' in mergeSuite([shard(1, 2, ['demo.a']), shard(2, 2, ['demo.b'])])).toBe(false);
  });

  test('the shards of a suite become one result: every check, summary recounted, catalogue order', () => {
    const catalogue = ['demo.a', 'demo.b', 'demo.c', 'demo.d.bad'];
    // Each check in the shard its id puts it in, as a real run would.
    const of = (index: number) => catalogue.filter((id) => shardOfCheck(id, 2) === index);
    const merged = mergeSuite(
      [
        shard(2, 2, of(2), { durationMs: 900, startedAt: '2026-11-21T10:00:05.000Z' }),
        shard(1, 2, of(1), { durationMs: 1500, startedAt: '2026-11-21T10:00:01.000Z' }),
      ],
      catalogue,
    );
    expect(merged.checks.map((c) => c.id)).toEqual(['demo.a', 'demo.b', 'demo.c', 'demo.d.bad']);
    expect(merged.summary).toEqual({
      passed: 3,
      failed: 1,
      warned: 0,
      skipped: 0,
    });
    expect(merged).toMatchObject({
      suite: 'demo',
      seed: 42,
      durationMs: 1500,
      startedAt: '2026-11-21T10:00:01.000Z',
    });
    expect(merged.shard).toBeUndefined();
  });

  test('baseline marks of the shards are kept', () => {
    const input = shard(1, 1, ['demo.a.bad']);
    input.result.checks[0] = {
      ...input.result.checks[0]!,
      baseline: { status: 'expected-failure', reason: 'why' },
    };
    expect(mergeSuite([input]).checks[0]?.baseline).toEqual({ status: 'expected-failure', reason: 'why' });
  });

  test('different seeds are refused: the shards did not run the same checks', () => {
    expect(
      mergeError(() => mergeSuite([shard(1, 2, ['demo.a']), shard(2, 2, ['demo.b'], { seed: 7 })])),
    ).toBe(
      'suite demo: seed 7 in shard-2/results.json but 42 in shard-1/results.json: shards must run with the same --seed',
    );
  });

  test('a check or a shard given twice is refused', () => {
    expect(mergeError(() => mergeSuite([shard(1, 2, ['demo.a']), shard(2, 2, ['demo.a'])]))).toBe(
      'suite demo: check demo.a is in both shard-1/results.json and shard-2/results.json',
    );
    const again = { ...shard(1, 2, ['demo.b']), source: 'copy/results.json' };
    expect(mergeError(() => mergeSuite([shard(1, 2, ['demo.a']), again, shard(2, 2, [])]))).toContain(
      'shard 1/2 is given twice (shard-1/results.json and copy/results.json)',
    );
  });

  test('a missing shard, different shard counts or a whole run among shards are refused', () => {
    expect(mergeError(() => mergeSuite([shard(1, 3, ['demo.a']), shard(3, 3, ['demo.c'])]))).toBe(
      'suite demo: shard 2/3 missing: its checks would silently not count',
    );
    expect(mergeError(() => mergeSuite([shard(1, 2, ['demo.a']), shard(2, 3, ['demo.b'])]))).toContain(
      'is shard 2/3, but other inputs have 2 shards',
    );
    const whole = {
      source: 'whole/results.json',
      result: suiteResult('demo', [check({ id: 'x', status: 'pass' })]),
    };
    expect(mergeError(() => mergeSuite([shard(1, 2, ['demo.a']), whole]))).toContain('holds the whole suite');
  });

  test('several suites are merged each on their own, in the order they first appear', () => {
    const other = {
      source: 'o.json',
      result: suiteResult('other', [check({ id: 'other.a', status: 'pass' })]),
    };
    const merged = mergeResults([shard(1, 2, ['demo.a']), other, shard(2, 2, ['demo.b'])]);
    expect(merged.map((r) => [r.suite, r.checks.length])).toEqual([
      ['demo', 2],
      ['other', 1],
    ]);
    expect(mergeError(() => mergeResults([]))).toBe('no results.json among the inputs');
  });
});
