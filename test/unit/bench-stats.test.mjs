// Unit tests of bench/lib/stats.mjs's bootstrap interval, which the startup rows' notes give with their goal verdicts:
// it must bracket the median difference, say nothing without rounds or with too few to bound a median, repeat exactly,
// and cover the true median about as often as its level says. And of the tail share the ping-pong rows give
// (round trips slower than 3× the median), and the "vs floor" cell (report.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIN_INTERVAL_ROUNDS, medianDiff, medianDiffInterval, slowerThanMedian } from '../../bench/lib/stats.mjs';

/** Deterministic normal draws (Box-Muller over a linear congruential generator). */
function normals(seed) {
  let s = seed >>> 0;
  const uniform = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

test('the interval of identical differences is that difference, and brackets the median difference of noisy rounds', () => {
  const same = Array.from({ length: 10 }, (_, i) => ({ untraced: 100 + i, traced: 142 + i }));
  assert.deepEqual(medianDiffInterval(same, 'traced'), [42, 42]);
  const draw = normals(7);
  const rounds = Array.from({ length: 40 }, () => ({ untraced: 350 + 50 * draw(), traced: 395 + 50 * draw() }));
  const [low, high] = medianDiffInterval(rounds, 'traced');
  const mid = medianDiff(rounds, 'traced');
  assert.ok(low < mid && mid < high, `${low} < ${mid} < ${high}`);
  assert.deepEqual(medianDiffInterval(rounds, 'traced'), [low, high], 'the same rounds give the same interval');
  assert.ok(medianDiffInterval(rounds, 'traced', 'untraced', 0.5)[1] - medianDiffInterval(rounds, 'traced', 'untraced', 0.5)[0] < high - low, 'a lower level is narrower');
});

test('no rounds (or only failed ones) give no interval', () => {
  assert.deepEqual(medianDiffInterval([], 'traced'), [NaN, NaN]);
  assert.deepEqual(medianDiffInterval([{ untraced: 1, traced: NaN }], 'traced'), [NaN, NaN]);
});

test('fewer than 6 rounds bound nothing, however alike; 6 do', () => {
  assert.equal(MIN_INTERVAL_ROUNDS, 6);
  const rounds = Array.from({ length: 6 }, (_, i) => ({ untraced: 100 + i, traced: 164 + i }));
  for (let n = 1; n < 6; n++) assert.deepEqual(medianDiffInterval(rounds.slice(0, n), 'traced'), [-Infinity, Infinity], `${n} rounds`);
  assert.deepEqual(medianDiffInterval(rounds, 'traced'), [64, 64]);
});

test('the 95% interval covers the true median difference in about 95% of simulated runs', () => {
  const draw = normals(11);
  let covered = 0;
  const runs = 200;
  for (let k = 0; k < runs; k++) {
    const rounds = Array.from({ length: 40 }, () => ({ untraced: 350 + 50 * draw(), traced: 395 + 50 * draw() }));
    const [low, high] = medianDiffInterval(rounds, 'traced');
    if (low <= 45 && 45 <= high) covered++;
  }
  // ≈ 95% ± 1.5% (binomial, 200 runs; the draws are seeded, so the count is fixed): a 90% interval gives 182 of 200.
  assert.ok(covered >= 0.92 * runs && covered <= 0.99 * runs, `covered ${covered} of ${runs}`);
});

test('slowerThanMedian: the share of samples above 3× their median, over the filled part only', () => {
  assert.equal(slowerThanMedian([1, 1, 1, 1]), 0);
  assert.equal(slowerThanMedian([1, 1, 1, 3]), 0, 'exactly 3× the median is not slower');
  assert.equal(slowerThanMedian([1, 1, 1, 3.01]), 0.25);
  assert.equal(slowerThanMedian([2, 1, 10, 1, 100, 1, 1, 1]), 0.25, 'unsorted input; median 1');
  assert.equal(slowerThanMedian([1, 2, 7, 14]), 0.25, 'even count: the median is the mean of the middle two (4.5), so 14 > 13.5');
  const buf = new Float64Array(8);
  buf.set([1, 1, 5, 1]);
  assert.equal(slowerThanMedian(buf, 4), 0.25, 'only the first count samples; the zeros after them are not samples');
  assert.deepEqual([...buf.subarray(0, 4)], [1, 1, 5, 1], 'the input is not sorted in place');
  assert.equal(slowerThanMedian([1, 1, 5, 1], 4, 6), 0, 'k is the multiple');
  assert.ok(Number.isNaN(slowerThanMedian([])));
  assert.ok(Number.isNaN(slowerThanMedian(buf, 0)));
});

test('vsFloor: per-round ratio or difference against the floor variant, none when it did not run', async () => {
  const { vsFloor } = await import('../../bench/lib/report.mjs');
  const rounds = [
    { t: 50, 'floor-export': 100 },
    { t: 60, 'floor-export': 100 },
    { t: 90, 'floor-export': 200 },
  ];
  assert.deepEqual(vsFloor(rounds, 't', 'floor-export'), { kind: 'ratio', value: 0.5, level: 'export' });
  assert.deepEqual(vsFloor(rounds, 't', 'floor-export', 'diff'), { kind: 'diff', value: -50, level: 'export' });
  assert.equal(vsFloor(rounds, 't', undefined), null);
  assert.equal(vsFloor([{ t: 1 }], 't', 'floor-export'), null);
});

test("exportCostRows: span files − no exporter per span, held against the floor's export − records", async () => {
  const { exportCostRows } = await import('../../bench/lib/export-cost.mjs');
  const rounds = [
    { 'tracehook-files': 30, 'tracehook-noexport': 20, 'floor-export': 12, 'floor-records': 10 },
    { 'tracehook-files': 34, 'tracehook-noexport': 22, 'floor-export': 13, 'floor-records': 10 },
    { 'tracehook-files': 28, 'tracehook-noexport': 20, 'floor-export': 11, 'floor-records': 10 },
  ];
  const names = Object.keys(rounds[0]);
  const [traced, floor] = exportCostRows('workers', 'export', rounds, { names, na: {}, spansPerOp: 2, note: 'per op' });
  assert.equal(traced.variant, 'tracehook-files');
  assert.equal(traced.value, 5, 'median of 10, 12, 8 µs per op over 2 spans');
  assert.deepEqual(traced.floor, { kind: 'diff', value: 4, level: 'export' }, 'per round: 5 − 1, 6 − 1.5, 4 − 0.5');
  assert.equal(traced.goal.met, false);
  assert.equal(floor.variant, 'floor-export');
  assert.equal(floor.value, 1);
  assert.equal(floor.goal, undefined);
  assert.deepEqual(exportCostRows('workers', 'export', rounds, { names: ['tracehook-files', 'tracehook-noexport'], na: { 'tracehook-noexport': 'broken' } }), [], 'no row without both sides');
});
