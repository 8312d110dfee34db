import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { WirecheckError } from '../../src/harness/errors.js';
import { parseShard, selectShard, shardOfCheck } from '../../src/harness/shard.js';

const ids = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 30 }), { maxLength: 60 });
const checksOf = (list: string[]) => list.map((id) => ({ id }));

describe('--shard i/n', () => {
  test('parses i/n with 1 <= i <= n; anything else is a usage error saying what is expected', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/4', '5/4', '1/0', '2', 'a/b', '-1/4', '1/1001', '']) {
      expect(() => parseShard(bad), bad).toThrow(WirecheckError);
    }
    expect(() => parseShard('5/4')).toThrow('the shard number must be 1 to 4 (shards count from 1)');
    expect(() => parseShard('x')).toThrow('--shard takes i/n, e.g. 2/4 (got "x")');
  });

  test('every check is in exactly one shard, and each shard keeps catalogue order', () => {
    fc.assert(
      fc.property(ids, fc.integer({ min: 1, max: 12 }), (list, count) => {
        const checks = checksOf(list);
        const parts = Array.from({ length: count }, (_, i) => selectShard(checks, { index: i + 1, count }));
        const seen = parts.flat().map((c) => c.id);
        expect(seen.slice().sort()).toEqual(list.slice().sort());
        for (const part of parts) {
          const positions = part.map((c) => list.indexOf(c.id));
          expect(positions).toEqual(positions.slice().sort((a, b) => a - b));
        }
      }),
    );
  });

  test('adding or removing other checks never moves a check to another shard', () => {
    fc.assert(
      fc.property(ids, ids, fc.integer({ min: 1, max: 12 }), (list, extra, count) => {
        for (let index = 1; index <= count; index++) {
          const before = selectShard(checksOf(list), { index, count }).map((c) => c.id);
          const others = extra.filter((id) => !list.includes(id));
          const after = selectShard(checksOf([...others, ...list]), { index, count }).map((c) => c.id);
          expect(after.filter((id) => list.includes(id))).toEqual(before);
        }
      }),
    );
  });

  test('the split is a pure function of the id: the same on every machine of a CI matrix', () => {
    expect(shardOfCheck('runner.truncation.at-limit', 4)).toBe(shardOfCheck('runner.truncation.at-limit', 4));
    expect(shardOfCheck('anything', 1)).toBe(1);
    // Pinned: a change of the hash would silently reshuffle every user's shards (and baselines per shard).
    expect(shardOfCheck('runner.results.ids-in-order', 4)).toBe(2);
    expect(['fake.a.one', 'fake.a.two', 'fake.b.one', 'fake.c.one'].map((id) => shardOfCheck(id, 2))).toEqual(
      [2, 1, 1, 1],
    );
  });

  test('without a shard every check is selected', () => {
    expect(selectShard(checksOf(['a', 'b']), undefined).map((c) => c.id)).toEqual(['a', 'b']);
  });

  test('a suite of realistic ids is spread over every shard', () => {
    const list = Array.from({ length: 48 }, (_, i) => `suite.group-${i % 7}.check-${i}`);
    const sizes = [1, 2, 3, 4].map((index) => selectShard(checksOf(list), { index, count: 4 }).length);
    expect(sizes.every((n) => n >= 6)).toBe(true);
  });
});
