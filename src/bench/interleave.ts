/** One contender of a comparison: `run` measures once and returns the value (higher is better). */
export interface Variant {
  name: string;
  run(): Promise<number>;
}

export interface InterleaveOptions {
  /** Measured rounds; every variant runs once per round. */
  rounds: number;
  /** Rounds run first and thrown away (JIT, connection pools, caches). */
  warmupRounds: number;
  /** Told after each round, warm-up included (progress output). */
  onRound?(round: number, of: number): void;
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
  for (let round = 0; round < total; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(round + k) % variants.length]!;
      const value = await variant.run();
      if (round >= options.warmupRounds) samples[variant.name]!.push(value);
    }
    options.onRound?.(round + 1, total);
  }
  return samples;
}
