import { describe, expect, test } from 'vitest';
import { mergeSuite } from '../../src/harness/merge.js';
import { SuiteResult } from '../../src/harness/results.js';
import { MAX_SHARDS } from '../../src/harness/shard.js';
import { check } from '../reporters/fixtures.js';
import { mergeError, shard as shardOf } from './merge-helpers.js';

/** A shard as these tests write them: 100 runs asked. */
const shard: typeof shardOf = (index, count, ids, overrides = {}) =>
  shardOf(index, count, ids, { runs: 100, ...overrides });

describe('a results.json shard is bounded', () => {
  const parsed = (shardValue: unknown) =>
    SuiteResult.safeParse({ ...shard(1, 1, []).result, shard: shardValue });

  test('its count is at most MAX_SHARDS and its index at most its count', () => {
    expect(parsed({ index: 1, count: MAX_SHARDS }).success).toBe(true);
    expect(parsed({ index: 3, count: 3 }).success).toBe(true);
    const huge = parsed({ index: 1, count: 3_000_000 });
    expect(huge.success).toBe(false);
    expect(huge.error?.issues[0]?.path).toEqual(['shard', 'count']);
    const past = parsed({ index: 5, count: 3 });
    expect(past.success).toBe(false);
    expect(past.error?.issues[0]).toMatchObject({
      path: ['shard'],
      message: 'the shard index must be at most its count',
    });
  });

  test('a merge missing many shards names the first ten and counts the rest', () => {
    expect(mergeError(() => mergeSuite([shard(2, MAX_SHARDS, ['demo.a'])]))).toBe(
      `suite demo: shard 1/1000, 3/1000, 4/1000, 5/1000, 6/1000, 7/1000, 8/1000, 9/1000, 10/1000, 11/1000 and 989 more missing: its checks would silently not count`,
    );
    expect(mergeError(() => mergeSuite([shard(1, 3, ['demo.a'])]))).toBe(
      'suite demo: shard 2/3, 3/3 missing: its checks would silently not count',
    );
  });
});

describe('shards of different runs are refused, saying what was expected and what arrived', () => {
  test('different runs or wirecheck versions', () => {
    expect(
      mergeError(() => mergeSuite([shard(1, 2, ['demo.a']), shard(2, 2, ['demo.b'], { runs: 5 })])),
    ).toBe(
      'suite demo: runs 5 in shard-2/results.json but 100 in shard-1/results.json: shards must run with the same --runs (and --full)',
    );
    expect(
      mergeError(() =>
        mergeSuite([shard(1, 2, ['demo.a']), shard(2, 2, ['demo.b'], { wirecheck: '0.0.9' })]),
      ),
    ).toBe(
      'suite demo: wirecheck "0.0.9" in shard-2/results.json but "0.1.0" in shard-1/results.json: run every shard with the same wirecheck version',
    );
  });

  test('shards that describe their targets differently are merged with a warning naming both', () => {
    const merged = mergeSuite([
      shard(1, 2, ['demo.a'], { target: 'python3 impl_A.py' }),
      shard(2, 2, ['demo.b'], { target: 'python3 impl_B.py' }),
    ]);
    expect(merged.warnings).toEqual([
      'suite demo: the shards describe their targets differently: "python3 impl_B.py" in shard-2/results.json but "python3 impl_A.py" in shard-1/results.json; merged as one run, which is right only if they tested the same implementation',
    ]);
  });

  test('a long target is quoted bounded', () => {
    const long = 'x'.repeat(100_000);
    const merged = mergeSuite([shard(1, 2, ['demo.a']), shard(2, 2, ['demo.b'], { target: long })]);
    expect(merged.warnings?.[0]?.length).toBeLessThan(1_000);
    expect(merged.warnings?.[0]).toContain('(100000 characters)');
  });

  test("a shard that never reached its target is merged whatever its placeholder, and the target is the others'", () => {
    const error = { code: 'WC_TARGET_UNAVAILABLE', message: 'no answer' };
    const unavailable = shard(1, 2, [], { target: '(not started)', error });
    const merged = mergeSuite([unavailable, shard(2, 2, ['demo.b'], { target: 'python3 impl.py' })]);
    expect(merged.target).toBe('python3 impl.py');
    expect(merged.error).toEqual(error);
    const unreached = shard(1, 2, [], { target: '(not started)' });
    unreached.result.checks = [check({ id: 'demo.a', status: 'skip', skipKind: 'not-run' })];
    expect(mergeSuite([unreached, shard(2, 2, ['demo.b'], { target: 't' })]).target).toBe('t');
  });
});

describe("the merged result's stop", () => {
  test("is the weightiest of the shards' stops: a harness error, then an interrupt, then the others", () => {
    const gone = { kind: 'target-gone' as const, message: 'the target stopped during demo.a: exited' };
    const interrupted = {
      kind: 'interrupted' as const,
      signal: 'SIGTERM' as const,
      message: 'interrupted by SIGTERM',
    };
    const bug = { kind: 'harness-error' as const, message: 'wirecheck failed during demo.c' };
    const three = (stops: (SuiteResult['stopped'] | undefined)[]) =>
      mergeSuite(
        stops.map((stopped, i) =>
          shard(i + 1, stops.length, [`demo.${i}`], stopped === undefined ? {} : { stopped }),
        ),
      ).stopped;
    expect(three([gone, interrupted, undefined])).toEqual(interrupted);
    expect(three([gone, interrupted, bug])).toEqual(bug);
    expect(three([undefined, gone, undefined])).toEqual(gone);
    expect(three([undefined, undefined, undefined])).toBeUndefined();
  });
});
