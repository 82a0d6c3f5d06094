// Unit tests of the trace comparison (dist/span-file/trace-compare.js, called directly and as the
// page inlines it): spans matched by path key, deltas and ratios, spans in one trace only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inlined } from '../helpers/page-inline.mjs';
import * as module from '../../dist/span-file/trace-compare.js';

const { compareTraces, spanPathKeys } = module;

const span = (id, parent, name, start, dur, service = 'front') => ({ id, ...(parent ? { parent } : {}), name, service, start, dur });

const fast = [span('a1', undefined, 'GET /users', 0, 100), span('a2', 'a1', 'SELECT', 10, 20, 'db'), span('a3', 'a1', 'SELECT', 40, 30, 'db'), span('a4', 'a1', 'cache get', 80, 5)];
const slow = [span('b1', undefined, 'GET /users', 0, 900), span('b2', 'b1', 'SELECT', 10, 25, 'db'), span('b3', 'b1', 'SELECT', 40, 800, 'db'), span('b5', 'b1', 'render', 850, 40)];

test('spanPathKeys: service and name from the root down, repeats among siblings numbered in start order', () => {
  const keys = spanPathKeys(fast);
  assert.equal(keys.get('a1').key, 'front: GET /users');
  assert.equal(keys.get('a2').key, 'front: GET /users > db: SELECT');
  assert.equal(keys.get('a3').key, 'front: GET /users > db: SELECT #2');
  assert.equal(keys.get('a3').depth, 1);
  const shuffled = spanPathKeys([fast[2], fast[0], fast[1]]);
  assert.equal(shuffled.get('a3').key, 'front: GET /users > db: SELECT #2', 'the order of the input does not matter');
});

test('compareTraces: matched spans with durations, delta and ratio, largest change first; spans in one trace only', () => {
  const c = compareTraces(fast, slow);
  assert.deepEqual(
    c.matched.map((m) => [m.key, m.durationA, m.durationB, m.delta]),
    [
      ['front: GET /users', 100, 900, 800],
      ['front: GET /users > db: SELECT #2', 30, 800, 770],
      ['front: GET /users > db: SELECT', 20, 25, 5],
    ],
  );
  assert.equal(c.matched[0].ratio, 9);
  assert.equal(c.matched[0].spanIdA, 'a1');
  assert.equal(c.matched[0].spanIdB, 'b1');
  assert.deepEqual(
    c.onlyA.map((u) => [u.key, u.spanId, u.duration]),
    [['front: GET /users > front: cache get', 'a4', 5]],
  );
  assert.deepEqual(
    c.onlyB.map((u) => [u.key, u.spanId, u.duration]),
    [['front: GET /users > front: render', 'b5', 40]],
  );
});

test('compareTraces: a span of zero duration in A has no ratio; a shrunk span has a negative delta', () => {
  const c = compareTraces([span('x', undefined, 'op', 0, 0)], [span('y', undefined, 'op', 0, 3)]);
  assert.equal(c.matched[0].ratio, null);
  const d = compareTraces(slow, fast);
  assert.equal(d.matched[0].delta, -800);
});

test('spanPathKeys: spans in a parent cycle and names that contain the separator still get unique keys', () => {
  const keys = spanPathKeys([span('a', 'b', 'x', 0, 1), span('b', 'a', 'y', 1, 1), span('r', undefined, 'p > q', 0, 5), span('s', undefined, 'p', 0, 5), span('t', 's', 'q', 1, 1)]);
  assert.equal(keys.size, 5);
  assert.equal(new Set([...keys.values()].map((k) => k.key)).size, 5);
});

test('the functions work from their compiled text alone, as the page inlines them', () => {
  const inlinedFns = inlined(module, 'compareTraces');
  assert.deepEqual(inlinedFns.compareTraces(fast, slow), compareTraces(fast, slow));
});
