/**
 * The first failing prefix of a batch, by binary search, as merge queues such as bors find the
 * merge that broke a batch: prefix 0 (the verified base) passes, prefix `size` (the whole batch)
 * fails, and `passes(k)` runs the gate on the first k merges. Returns the last passing prefix and
 * the culprit (1-based: the merge that first fails), or 'stopped' when a test was stopped.
 * Takes about log2(size) gate runs.
 */
export async function findFirstFailingPrefix(
  size: number,
  passes: (prefix: number) => Promise<boolean | 'stopped'>,
): Promise<{ lastPassing: number; culprit: number } | 'stopped'> {
  if (!(size >= 1)) throw new RangeError(`a batch has at least one merge, got ${size}`);
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const result = await passes(mid);
    if (result === 'stopped') return 'stopped';
    if (result) lo = mid;
    else hi = mid;
  }
  return { lastPassing: lo, culprit: hi };
}
