// Small statistics for the bench: medians, per-round ratios and differences against a baseline variant.
import { createRequire } from 'node:module';

/** The share of latencies above k × their median (tail.cjs, which the apps require). */
export const { slowerThanMedian } = createRequire(import.meta.url)('./tail.cjs');

export function median(xs) {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** rounds: [{ variant: value }], one object per round. Median over rounds of value / baseline in the same round. */
export function medianRatio(rounds, variant, baseline = 'untraced') {
  return median(rounds.map((r) => r[variant] / r[baseline]));
}

/** Median over rounds of value - baseline in the same round. */
export function medianDiff(rounds, variant, baseline = 'untraced') {
  return median(rounds.map((r) => r[variant] - r[baseline]));
}

/**
 * Fewest rounds with a 95% interval for a median that assumes nothing of the noise: with 5, even the smallest and
 * largest value bound it only with 1 − 2 × 2⁻⁵ ≈ 94% confidence (sign test, order statistics).
 */
export const MIN_INTERVAL_ROUNDS = 6;

/**
 * Percentile bootstrap interval of the median of per-round differences (`variant` − `baseline`): how far the
 * "vs untraced" figure could move with other draws of the same noise. 2000 resamples from a fixed seed, so a
 * run's figures repeat exactly when re-read.
 * @returns [low, high] in the values' unit; [NaN, NaN] without a round where both values are numbers;
 *   [−∞, +∞] with fewer than {@link MIN_INTERVAL_ROUNDS} (resampling a handful of rounds gives an interval as
 *   narrow as their spread, which says nothing)
 * @see Efron & Tibshirani, "An Introduction to the Bootstrap" (1993), ch. 13, the percentile interval
 */
export function medianDiffInterval(rounds, variant, baseline = 'untraced', level = 0.95) {
  const diffs = rounds.map((r) => r[variant] - r[baseline]).filter((x) => Number.isFinite(x));
  if (diffs.length === 0) return [NaN, NaN];
  if (diffs.length < MIN_INTERVAL_ROUNDS) return [-Infinity, Infinity];
  const random = seeded(0x5eed);
  const medians = [];
  const sample = new Array(diffs.length);
  for (let b = 0; b < 2000; b++) {
    for (let i = 0; i < diffs.length; i++) sample[i] = diffs[Math.floor(random() * diffs.length)];
    medians.push(median(sample));
  }
  medians.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return [medians[Math.floor(tail * (medians.length - 1))], medians[Math.ceil((1 - tail) * (medians.length - 1))]];
}

/** mulberry32: a small seeded generator of uniform numbers in [0, 1). */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function values(rounds, variant) {
  return rounds.map((r) => r[variant]);
}

/** Rotates the variant order by round, so no variant always runs first or last. */
export function order(names, round) {
  const k = round % names.length;
  return [...names.slice(k), ...names.slice(0, k)];
}
