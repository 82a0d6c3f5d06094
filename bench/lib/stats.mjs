// Small statistics for the bench: medians, per-round ratios and differences against a baseline variant.

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

export function values(rounds, variant) {
  return rounds.map((r) => r[variant]);
}

/** Rotates the variant order by round, so no variant always runs first or last. */
export function order(names, round) {
  const k = round % names.length;
  return [...names.slice(k), ...names.slice(0, k)];
}
