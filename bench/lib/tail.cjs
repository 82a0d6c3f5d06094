// The tail statistic of issue 30's messaging goal, "no round trip slower than 3× the median more often than
// untraced": computed in the app (CommonJS, so the worker apps can require it) over the latencies it recorded.
'use strict';

/**
 * The share of `samples[0..count)` that are more than `k` times their median (0 to 1); NaN without samples.
 * `samples` is not changed (a sorted copy gives the median).
 * @param {Float64Array | number[]} samples latencies, any unit
 * @param {number} [count] how many of `samples` are filled (default: all)
 * @param {number} [k] the multiple of the median that counts as slow (default 3)
 */
function slowerThanMedian(samples, count = samples.length, k = 3) {
  if (!(count > 0)) return NaN;
  const sorted = Float64Array.from(samples.slice(0, count)).sort();
  const m = count >> 1;
  const median = count % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  const limit = k * median;
  // sorted: the slow ones are the tail after the last value ≤ limit.
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= limit) lo = mid + 1;
    else hi = mid;
  }
  return (count - lo) / count;
}

module.exports = { slowerThanMedian };
