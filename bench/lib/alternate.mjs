// Ours and the reference measured by turns, in the same run: a moment of load
// on the shared machine then meets both, not one section of one of them.

/**
 * Runs `ours(i)` and `reference(i)` `runs` times each, one after the other,
 * the first of each pair switching every time. Each returns a duration (ms).
 * @param {number} runs
 * @param {(i: number) => Promise<number> | number} ours
 * @param {(i: number) => Promise<number> | number} reference
 * @returns {Promise<[number[], number[]]>}
 */
export async function alternate(runs, ours, reference) {
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      a.push(await ours(i));
      b.push(await reference(i));
    } else {
      b.push(await reference(i));
      a.push(await ours(i));
    }
  }
  return [a, b];
}

/**
 * The statistic's name for `count` samples: a "p95" of fewer than 20 samples
 * is their maximum, and is called that.
 * @param {number} p
 * @param {number} count
 */
export function percentileName(p, count) {
  return count < Math.ceil(100 / (100 - p)) ? `max of ${count}` : `p${p} of ${count}`;
}
