// Interleaved timing of two encoders over the same spans, shared by bench/encode.mjs and the spans it times
// inside a traced process (lib/encode-in-place.mjs).
import { median } from './stats.mjs';

/** µs per span of `fn()` run repeatedly for `ms`; each call encodes `spanCount` spans. */
function usPerSpan(fn, spanCount, ms) {
  let calls = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(Math.round(ms * 1e6));
  let now = start;
  while (now < until) {
    fn();
    calls++;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1000 / (calls * spanCount);
}

/**
 * Times `a()` and `b()`, each encoding `spanCount` spans, alternately (the order swapped every round) for
 * `rounds` rounds of `ms` each, after `warmup` calls of both.
 * @returns `{ a, b, ratio }`: the median µs per span of each, and the median of the per-round ratios b / a
 */
export function compareInterleaved(a, b, spanCount, { rounds, ms, warmup = 50 }) {
  for (let i = 0; i < warmup; i++) (a(), b());
  const got = { a: [], b: [], ratio: [] };
  for (let r = 0; r < rounds; r++) {
    const round = {};
    for (const [key, fn] of r % 2
      ? [
          ['b', b],
          ['a', a],
        ]
      : [
          ['a', a],
          ['b', b],
        ])
      round[key] = usPerSpan(fn, spanCount, ms);
    got.a.push(round.a);
    got.b.push(round.b);
    got.ratio.push(round.b / round.a);
  }
  return { a: median(got.a), b: median(got.b), ratio: median(got.ratio) };
}
