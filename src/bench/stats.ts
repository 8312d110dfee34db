/** The median of a non-empty list (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The median of the per-round ratios `values[i] / baselines[i]`. Pairing by round cancels
 * what drifts between rounds (CPU frequency, a neighbour's load), which a ratio of two
 * medians would not.
 */
export function pairedRatio(values: readonly number[], baselines: readonly number[]): number {
  if (values.length !== baselines.length) {
    throw new RangeError(`paired ratio of ${values.length} values and ${baselines.length} baselines`);
  }
  return median(values.map((v, i) => v / baselines[i]!));
}
