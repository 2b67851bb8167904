// Ours and the reference measured by turns, in the same run: a moment of load
// on the shared machine then meets both, not one section of one of them.

/**
 * Runs `ours(i)` and `reference(i)` `runs` times each, one after the other,
 * the first of each pair switching every time. Each returns a duration (ms).
 * `settleMs` waits that long before each one: where both spend tens of ms of
 * the same container's CPU, whichever came second would otherwise start with
 * the ½-vCPU quota (50 ms a 100 ms period) spent by the other and wait.
 * @param {number} runs
 * @param {(i: number) => Promise<number> | number} ours
 * @param {(i: number) => Promise<number> | number} reference
 * @param {{ settleMs?: number }} [options]
 * @returns {Promise<[number[], number[]]>}
 */
export async function alternate(runs, ours, reference, { settleMs = 0 } = {}) {
  const a = [];
  const b = [];
  const settle = () => (settleMs ? new Promise((resolve) => setTimeout(resolve, settleMs)) : undefined);
  for (let i = 0; i < runs; i++) {
    const first = i % 2 === 0 ? [a, ours] : [b, reference];
    const second = i % 2 === 0 ? [b, reference] : [a, ours];
    for (const [into, fn] of [first, second]) {
      await settle();
      into.push(await fn(i));
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
