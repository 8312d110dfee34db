import { UsageError } from './errors.js';
import type { SuiteResult } from './results.js';

/** One of `count` parts of a suite's selected checks, 1-based (`--shard 2/4` is index 2, count 4). */
export type Shard = NonNullable<SuiteResult['shard']>;

/** Shards above this are surely a typo (and would leave almost every shard empty). */
export const MAX_SHARDS = 1000;

/** `i/n` as given to `--shard`; anything else is a UsageError saying what was expected. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (match === null) throw new UsageError(`--shard takes i/n, e.g. 2/4 (got ${JSON.stringify(text)})`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || count > MAX_SHARDS) {
    throw new UsageError(`--shard ${text}: the number of shards must be 1 to ${MAX_SHARDS}`);
  }
  if (index < 1 || index > count) {
    throw new UsageError(`--shard ${text}: the shard number must be 1 to ${count} (shards count from 1)`);
  }
  return { index, count };
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * FNV-1a (32 bit) over the UTF-16 code units, then murmur3's finalizer: FNV alone leaves the
 * low bits (all that `% count` looks at) poorly mixed for ids that differ in one character.
 * Tiny, and the same on every machine.
 */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35) >>> 0;
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The shard (1-based) a check belongs to. It depends only on the check's id and the number
 * of shards, so adding, removing or reordering other checks never moves a check between
 * shards, and every machine of a CI matrix computes the same split.
 */
export function shardOfCheck(id: string, count: number): number {
  return (hashOf(id) % count) + 1;
}

/** The checks of `shard` (all of them without one), in their original order. */
export function selectShard<C extends { id: string }>(checks: readonly C[], shard: Shard | undefined): C[] {
  if (shard === undefined) return [...checks];
  return checks.filter((c) => shardOfCheck(c.id, shard.count) === shard.index);
}
