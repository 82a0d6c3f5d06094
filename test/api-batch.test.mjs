// batch() and startBatchSpan(): one span per batch linked to every caller (with the item's
// index), each caller's span linked back with its wait time, and each caller its own outcome.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { batch, BATCH_INDEX_ATTRIBUTE, BATCH_SIZE_ATTRIBUTE, BATCH_WAIT_MS_ATTRIBUTE, currentSpan, injectContext, startBatchSpan, traced } from '@tracehook/register/api';
import { finished, ids, only, reset, sleep } from './helpers/api-provider.mjs';

const named = (name) => finished().filter((s) => s.name === name);
/** The caller span `batch()` made for request `i` (child of that request's span). */
const callerSpanOf = (i, name) => {
  const request = ids(only(`request-${i}`));
  const found = named(name).filter((s) => ids(s).parentId === request.spanId);
  assert.equal(found.length, 1, `one ${name} span under request-${i}`);
  return found[0];
};

/** Calls `fn(i)` from six concurrent requests, each inside its own traced span. */
const sixRequests = (fn) => Promise.allSettled(Array.from({ length: 6 }, (_, i) => traced(`request-${i}`, () => fn(i))()));

test('6 concurrent callers, maxBatchSize 3: 2 batch spans, each linked to its 3 callers with the right indexes', async () => {
  reset();
  const seen = [];
  const double = batch(
    async (items) => {
      seen.push(items);
      await sleep(2);
      traced('model', () => {})();
      return items.map((x) => x * 2);
    },
    { maxBatchSize: 3, batchWaitTimeoutMs: 1000, name: 'double' },
  );
  const outcomes = await sixRequests((i) => double(i * 10));
  assert.deepEqual(
    outcomes.map((o) => o.value),
    [0, 20, 40, 60, 80, 100],
    'every caller gets its own result',
  );
  assert.deepEqual(seen, [
    [0, 10, 20],
    [30, 40, 50],
  ]);

  const batches = named('double batch');
  assert.equal(batches.length, 2);
  for (const [k, batchSpan] of batches.entries()) {
    const callers = [0, 1, 2].map((i) => callerSpanOf(3 * k + i, 'double'));
    assert.equal(batchSpan.attributes[BATCH_SIZE_ATTRIBUTE], 3);
    assert.deepEqual(
      batchSpan.links.map((l) => [l.context.spanId, l.attributes[BATCH_INDEX_ATTRIBUTE]]),
      callers.map((c, i) => [ids(c).spanId, i]),
      `batch ${k} links its callers in order`,
    );
    assert.equal(ids(batchSpan).parentId, ids(callers[0]).spanId, 'child of the first caller');
    assert.equal(ids(batchSpan).traceId, ids(only(`request-${3 * k}`)).traceId);
    callers.forEach((caller, i) => {
      assert.equal(caller.attributes[BATCH_INDEX_ATTRIBUTE], i);
      assert.equal(caller.attributes[BATCH_SIZE_ATTRIBUTE], 3);
      assert.equal(typeof caller.attributes[BATCH_WAIT_MS_ATTRIBUTE], 'number');
      assert.ok(caller.attributes[BATCH_WAIT_MS_ATTRIBUTE] >= 0);
      assert.deepEqual(
        caller.links.map((l) => l.context.spanId),
        [ids(batchSpan).spanId],
        'the caller links to its batch',
      );
      assert.equal(caller.status.code, SpanStatusCode.UNSET);
    });
  }
  const models = named('model');
  assert.deepEqual(models.map((m) => ids(m).parentId).sort(), batches.map((b) => ids(b).spanId).sort(), 'handler spans are children of their batch span');
});

test('an Error result fails only its own caller; a throwing handler fails only its batch', async () => {
  reset();
  const itemError = new Error('bad item 40');
  const handlerError = new Error('model crashed');
  const run = batch(
    async (items) => {
      await sleep(1);
      if (items.includes(30)) throw handlerError;
      return items.map((x) => (x === 10 ? itemError : x + 1));
    },
    { maxBatchSize: 3, name: 'run' },
  );
  const outcomes = await sixRequests((i) => run(i * 10));
  assert.deepEqual(
    outcomes.slice(0, 3).map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual([outcomes[0].value, outcomes[2].value], [1, 21]);
  assert.equal(outcomes[1].reason, itemError, 'its own error, unchanged');
  for (const o of outcomes.slice(3)) assert.equal(o.reason, handlerError);

  assert.deepEqual(callerSpanOf(1, 'run').status, { code: SpanStatusCode.ERROR, message: 'bad item 40' });
  assert.equal(callerSpanOf(0, 'run').status.code, SpanStatusCode.UNSET);
  for (const i of [3, 4, 5]) assert.deepEqual(callerSpanOf(i, 'run').status, { code: SpanStatusCode.ERROR, message: 'model crashed' });
  const [first, second] = named('run batch');
  assert.equal(first.status.code, SpanStatusCode.UNSET);
  assert.deepEqual(second.status, { code: SpanStatusCode.ERROR, message: 'model crashed' });
});

test('a handler returning the wrong number of results fails its callers with a TypeError', async () => {
  reset();
  const short = batch((items) => items.slice(1), { maxBatchSize: 2, name: 'short' });
  const outcomes = await Promise.allSettled([short('a'), short('b')]);
  for (const o of outcomes) {
    assert.ok(o.reason instanceof TypeError);
    assert.match(o.reason.message, /batch\(short\): the handler returned an array of 1 for 2 items/);
  }
  assert.equal(only('short batch').status.code, SpanStatusCode.ERROR);
  const notArray = batch(() => 'nope', { maxBatchSize: 1, name: 'scalar' });
  await assert.rejects(notArray('x'), /returned string for 1 items/);
});

test('a partial batch runs after batchWaitTimeoutMs; batches run one at a time by default', async () => {
  reset();
  let running = 0;
  let most = 0;
  const sizes = [];
  const slow = batch(
    async (items) => {
      running++;
      most = Math.max(most, running);
      sizes.push(items.length);
      await sleep(15);
      running--;
      return items;
    },
    { maxBatchSize: 10, batchWaitTimeoutMs: 20, name: 'slow' },
  );
  const started = performance.now();
  const first = await Promise.all([slow(1), slow(2)]);
  assert.deepEqual(first, [1, 2]);
  assert.ok(performance.now() - started >= 19, 'waited for the timeout');
  for (const caller of named('slow')) assert.ok(caller.attributes[BATCH_WAIT_MS_ATTRIBUTE] >= 18);

  // While a batch runs, new calls queue; they run as the next batch, never concurrently.
  const a = slow('a');
  await sleep(25);
  const rest = [slow('b'), slow('c')];
  assert.deepEqual(await Promise.all([a, ...rest]), ['a', 'b', 'c']);
  assert.equal(most, 1);
  assert.deepEqual(sizes, [2, 1, 2]);

  // With a 0 ms wait, calls of the same tick still share a batch.
  const same = [];
  const zero = batch((items) => (same.push(items.length), items), { batchWaitTimeoutMs: 0 });
  await Promise.all([zero(1), zero(2), zero(3)]);
  assert.deepEqual(same, [3]);
});

test('batch() rejects bad options at creation, naming them', () => {
  assert.throws(() => batch('not a function'), TypeError);
  assert.throws(() => batch((x) => x, { maxBatchSize: 0 }), /maxBatchSize must be an integer ≥ 1, got 0/);
  assert.throws(() => batch((x) => x, { batchWaitTimeoutMs: -1 }), /batchWaitTimeoutMs must be a finite number of ms ≥ 0, got -1/);
  assert.throws(() => batch((x) => x, { maxConcurrentBatches: 1.5 }), RangeError);
});

test('startBatchSpan links queue messages that carry a traceparent, each with its index', async () => {
  reset();
  const messages = [];
  for (const i of [0, 1, 2]) {
    await traced(`producer-${i}`, () => messages.push({ body: i, headers: injectContext({}) }))();
  }
  messages.splice(1, 0, { body: 'no trace' });
  messages.push({ body: 'garbage', headers: { traceparent: 'garbage' } });
  const tracer = trace.getTracer('test');
  const local = tracer.startSpan('local');
  // Items: carriers (one missing, one garbage) and, last, an OpenTelemetry Context.
  const contexts = [...messages.map((m) => m.headers), trace.setSpan(ROOT_CONTEXT, local)];
  local.end();

  const result = await startBatchSpan({ name: 'orders process', kind: SpanKind.CONSUMER }, contexts, async (span) => {
    assert.equal(currentSpan(), span);
    await sleep(1);
    traced('handle', () => {})();
    return messages.length;
  });
  assert.equal(result, 5);

  const consumer = only('orders process');
  assert.equal(consumer.kind, SpanKind.CONSUMER);
  assert.equal(consumer.attributes[BATCH_SIZE_ATTRIBUTE], 6);
  const producers = [0, 1, 2].map((i) => ids(only(`producer-${i}`)));
  assert.deepEqual(
    consumer.links.map((l) => [l.context.spanId, l.attributes[BATCH_INDEX_ATTRIBUTE]]),
    [
      [producers[0].spanId, 0],
      [producers[1].spanId, 2],
      [producers[2].spanId, 3],
      [local.spanContext().spanId, 5],
    ],
  );
  assert.equal(ids(consumer).parentId, producers[0].spanId, 'child of the first traced message');
  assert.equal(ids(consumer).traceId, producers[0].traceId);
  assert.equal(ids(only('handle')).parentId, ids(consumer).spanId);

  reset();
  const err = new Error('poison message');
  assert.throws(
    () =>
      startBatchSpan('sync batch', [], () => {
        throw err;
      }),
    (e) => e === err,
  );
  const failed = only('sync batch');
  assert.equal(failed.status.code, SpanStatusCode.ERROR);
  assert.equal(failed.links.length, 0);
  assert.equal(failed.parentSpanContext, undefined, 'no traced item and nothing active: a root span');
});
