import type { RoundGate } from './quiet.js';

/**
 * One contender of a comparison: `run` measures once and returns the value, or several
 * values of one measurement by key (kept as samples named `${name}.${key}`).
 */
export interface Variant {
  name: string;
  run(): Promise<number | Readonly<Record<string, number>>>;
}

export interface InterleaveOptions {
  /** Measured rounds; every variant runs once per round. */
  rounds: number;
  /** Rounds run first and thrown away (JIT, connection pools, caches). */
  warmupRounds: number;
  /** Told after each round, warm-up included (progress output). */
  onRound?(round: number, of: number): void;
  /**
   * Asked before and after each measured round (not warm-up ones): waits for a quiet
   * machine, and redoes a round other load disturbed (its samples are thrown away and
   * every variant runs again, in the same order, so the rounds stay paired).
   */
  gate?: RoundGate;
}

/**
 * Runs the variants round after round, each once per round, so that whatever drifts
 * during the run touches them all alike. The order rotates every round (A B C, B C A,
 * ...) so that no variant always runs right after the same other one. Returns the
 * measured samples per variant name, in round order.
 */
export async function runInterleaved(
  variants: readonly Variant[],
  options: InterleaveOptions,
): Promise<Record<string, number[]>> {
  const names = new Set(variants.map((v) => v.name));
  if (names.size !== variants.length) throw new Error('variant names must be distinct');
  const samples: Record<string, number[]> = {};
  for (const v of variants) samples[v.name] = [];
  const total = options.warmupRounds + options.rounds;
  const gate = options.gate;
  for (let round = 0; round < total; round++) {
    const measured = round >= options.warmupRounds;
    let values: (number | Readonly<Record<string, number>>)[];
    do {
      if (measured) await gate?.before();
      values = [];
      for (let k = 0; k < variants.length; k++)
        values.push(await variants[(round + k) % variants.length]!.run());
    } while (measured && gate?.after() === true);
    if (measured) {
      values.forEach((value, k) => {
        const name = variants[(round + k) % variants.length]!.name;
        if (typeof value === 'number') samples[name]!.push(value);
        else {
          for (const [key, v] of Object.entries(value)) {
            samples[`${name}.${key}`] ??= [];
            samples[`${name}.${key}`]!.push(v);
          }
        }
      });
    }
    options.onRound?.(round + 1, total);
  }
  return samples;
}
