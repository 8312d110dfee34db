/**
 * Seeded randomness for fault plans: every random choice of a plan comes from one of
 * these generators, so a seed reproduces the exact same bytes, cuts and timings.
 */

/** A generator of floats in [0, 1); mulberry32, small and fast, good enough for test faults. */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max] (both inclusive). */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/**
 * Mix two numbers into a new 32-bit seed (splitmix-style finalizer), so that request n
 * of a service seeded with s gets its own, reproducible stream of choices.
 */
export function mixSeed(seed: number, n: number): number {
  let h = (Math.trunc(seed) ^ Math.imul(Math.trunc(n) + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}
