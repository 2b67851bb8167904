// The statistics every bench section reports, defined once.

/**
 * The middle sample (the upper one of the two middles for an even count).
 * @param {number[]} values
 */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * The nearest-rank percentile: the smallest sample at or above `p` percent
 * of them (p95 of 20 samples is the 19th; of fewer, see percentileName).
 * @param {number[]} values
 * @param {number} p percent, 0-100
 */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];
}
