// Unit tests of the critical path and self times (dist/span-file/critical-path.js, called directly
// and as the page inlines it: the functions' compiled text alone), with a fast-check property test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { inlined } from '../helpers/page-inline.mjs';
import * as module from '../../dist/span-file/critical-path.js';

const { criticalPath, selfTimes } = module;

const span = (id, parent, start, end) => ({ id, ...(parent ? { parent } : {}), start, dur: end - start });
const path = (spans, rootId) => criticalPath(spans, rootId).segments.map((s) => [s.spanId, s.start, s.end]);

test('criticalPath: sequential children are each on the path, with the parent between them', () => {
  const spans = [span('p', undefined, 0, 100), span('a', 'p', 10, 40), span('b', 'p', 40, 90)];
  assert.deepEqual(path(spans), [
    ['p', 0, 10],
    ['a', 10, 40],
    ['b', 40, 90],
    ['p', 90, 100],
  ]);
});

test('criticalPath: of parallel children only the last to finish counts; an earlier one that ended before it started comes back in', () => {
  const spans = [span('p', undefined, 0, 100), span('a', 'p', 10, 80), span('b', 'p', 20, 60), span('c', 'p', 2, 8)];
  assert.deepEqual(path(spans), [
    ['p', 0, 2],
    ['c', 2, 8],
    ['p', 8, 10],
    ['a', 10, 80],
    ['p', 80, 100],
  ]);
  const r = criticalPath(spans);
  assert.equal(r.onPath.get('b'), undefined, 'b ran under a: not on the path');
  assert.equal(r.onPath.get('p'), 2 + 2 + 20);
});

test("criticalPath: a hand-off (a PRODUCER that ends at once) leads into the consumer that did the work; the wait is the PRODUCER's", () => {
  const spans = [span('server', undefined, 0, 100), span('send', 'server', 10, 11), span('process', 'send', 30, 90), span('query', 'process', 40, 80), span('log', 'server', 12, 13)];
  assert.deepEqual(path(spans), [
    ['server', 0, 10],
    ['send', 10, 30],
    ['process', 30, 40],
    ['query', 40, 80],
    ['process', 80, 90],
    ['server', 90, 100],
  ]);
  assert.equal(criticalPath(spans).selfTime.get('send'), 1, 'self time stays within the span itself');
});

test('criticalPath: a child that outlives the root counts up to the root end; one wholly outside is left out', () => {
  const spans = [span('p', undefined, 0, 50), span('late', 'p', 10, 120), span('after', 'p', 60, 70)];
  assert.deepEqual(path(spans), [
    ['p', 0, 10],
    ['late', 10, 50],
  ]);
});

test('criticalPath: across processes, through a hand-off span into a worker and its query', () => {
  const spans = [
    span('server', undefined, 0, 1000),
    span('route', 'server', 5, 990),
    span('handoff', 'route', 100, 900),
    span('worker-task', 'handoff', 120, 880),
    span('query', 'worker-task', 200, 700),
    span('cache', 'route', 10, 90),
  ];
  const r = criticalPath(spans);
  assert.equal(r.rootId, 'server');
  assert.deepEqual(
    r.segments.map((s) => s.spanId),
    ['server', 'route', 'cache', 'route', 'handoff', 'worker-task', 'query', 'worker-task', 'handoff', 'route', 'server'],
  );
  assert.equal(r.onPath.get('query'), 500);
  assert.equal(r.onPath.get('worker-task'), 80 + 180);
  assert.equal(
    r.segments.reduce((n, s) => n + s.end - s.start, 0),
    1000,
  );
});

test('criticalPath: the root is the first parentless span unless one is named; no spans gives an empty path', () => {
  const spans = [span('late-root', undefined, 50, 60), span('root', undefined, 0, 40), span('orphan', 'gone', 1, 2)];
  assert.equal(criticalPath(spans).rootId, 'root');
  assert.deepEqual(path(spans, 'late-root'), [['late-root', 50, 60]]);
  assert.deepEqual(criticalPath([]), { rootId: undefined, segments: [], onPath: new Map(), selfTime: new Map() });
});

test('criticalPath: zero-length spans, a parent cycle and duplicate ids end the walk', () => {
  const cycle = [span('a', 'b', 0, 10), span('b', 'a', 2, 8)];
  const r = criticalPath(cycle);
  assert.ok(r.segments.length > 0);
  const zero = [span('p', undefined, 0, 10), span('z', 'p', 5, 5), span('z2', 'p', 5, 5), span('p', undefined, 0, 99)];
  assert.deepEqual(path(zero), [['p', 0, 10]], 'zero-length children add no segment; the stretches of p meet and read as one');
});

test('selfTimes: duration minus the union of the children, each clipped to the span', () => {
  const spans = [span('p', undefined, 0, 100), span('a', 'p', 10, 40), span('b', 'p', 30, 60), span('c', 'p', 90, 150), span('d', 'a', 15, 20)];
  const self = selfTimes(spans);
  assert.equal(self.get('p'), 100 - 50 - 10);
  assert.equal(self.get('a'), 25);
  assert.equal(self.get('c'), 60);
});

test('the functions work from their compiled text alone, as the page inlines them', () => {
  const inlinedFns = inlined(module, 'criticalPath');
  const spans = [span('p', undefined, 0, 100), span('a', 'p', 10, 40)];
  assert.deepEqual(inlinedFns.criticalPath(spans).segments, criticalPath(spans).segments);
});

// Random traces: parents come before children; times are integers so sums compare exactly.
const traceArb = fc
  .array(fc.record({ parent: fc.nat(), start: fc.integer({ min: 0, max: 1000 }), dur: fc.integer({ min: 0, max: 500 }), orphan: fc.boolean() }), { minLength: 1, maxLength: 40 })
  .map((rows) =>
    rows.map((r, i) => ({
      id: `s${i}`,
      ...(i === 0 ? {} : { parent: r.orphan && i % 7 === 0 ? 'missing' : `s${r.parent % i}` }),
      start: r.start,
      dur: r.dur,
    })),
  );

test('criticalPath (property): segments are ordered, non-overlapping, within the root and add up to its duration; self times are within durations', () => {
  fc.assert(
    fc.property(traceArb, (spans) => {
      const r = criticalPath(spans);
      const root = spans.find((s) => s.id === r.rootId);
      let cursor = root.start;
      let total = 0;
      for (const seg of r.segments) {
        assert.ok(seg.start >= cursor, 'ordered and non-overlapping');
        assert.ok(seg.end > seg.start, 'no empty segment');
        assert.ok(seg.end <= root.start + root.dur, 'within the root');
        cursor = seg.end;
        total += seg.end - seg.start;
      }
      assert.equal(total, root.dur, 'the path covers the root');
      let selfSum = 0;
      for (const s of spans) {
        const self = r.selfTime.get(s.id);
        assert.ok(self >= 0 && self <= s.dur, `self time of ${s.id} within its duration`);
        selfSum += self;
      }
      assert.ok(selfSum <= spans.reduce((n, s) => n + s.dur, 0));
      // A segment lies within its span, extended to the latest end below it (see criticalPath).
      const reach = (id) => {
        const s = spans.find((x) => x.id === id);
        return Math.max(s.start + s.dur, ...spans.filter((c) => c.parent === id && c.id !== id).map((c) => reach(c.id)));
      };
      for (const seg of r.segments) {
        const s = spans.find((x) => x.id === seg.spanId);
        assert.ok(seg.start >= Math.min(s.start, root.start) && seg.end <= reach(seg.spanId), `segment of ${seg.spanId} within its extent`);
      }
    }),
    { numRuns: 500 },
  );
});
