// The immutable trace stack: isolation between requests and between a request's child tasks,
// unsampled spans, and no context leaking after errors (the bugs of Ray PR #61230's review).
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import { context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { currentSpan, getTraceContext, setSpanAttributes, traced } from '@tracehook/register/api';
import { finished, ids, only, reset, sleep } from './helpers/api-provider.mjs';

// Deterministic randomness, so a failure can be replayed.
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('10 000 concurrent requests with awaits, timers and emitters: no span has a parent from another request', async () => {
  reset();
  const random = prng(61230);
  const tracer = trace.getTracer('test-user');
  const REQUESTS = 10_000;

  const wait = async () => {
    const r = random();
    if (r < 0.3) return sleep(Math.floor(random() * 3));
    if (r < 0.5) return new Promise((resolve) => setImmediate(resolve));
    if (r < 0.8) {
      // An emitter fired from a timer: its listener runs in the request's context.
      const emitter = new EventEmitter();
      setTimeout(() => emitter.emit('go'), Math.floor(random() * 2));
      return once(emitter, 'go');
    }
    return Promise.resolve();
  };

  const handle = traced('request', async (req) => {
    setSpanAttributes({ req });
    const own = currentSpan().spanContext().spanId;
    for (let step = 0; step < 2; step++) {
      await wait();
      assert.equal(currentSpan().spanContext().spanId, own);
      await traced('child', async () => {
        setSpanAttributes({ req });
        await wait();
        if (random() < 0.5) traced('grandchild', () => setSpanAttributes({ req }))();
      })();
    }
    const emitter = new EventEmitter();
    emitter.on(
      'event',
      traced('listener', () => setSpanAttributes({ req })),
    );
    setTimeout(() => emitter.emit('event'), 1);
    await once(emitter, 'event');
    await wait();
    tracer.startActiveSpan('user', {}, getTraceContext(), (span) => {
      span.setAttribute('req', req);
      span.end();
    });
  });

  await Promise.all(Array.from({ length: REQUESTS }, (_, i) => handle(i)));

  const spans = finished();
  const bySpanId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const roots = spans.filter((s) => s.name === 'request');
  assert.equal(roots.length, REQUESTS);
  assert.equal(new Set(roots.map((s) => s.spanContext().traceId)).size, REQUESTS, 'each request is its own trace');
  assert.equal(spans.filter((s) => s.name === 'child').length, 2 * REQUESTS);
  assert.equal(spans.filter((s) => s.name === 'listener').length, REQUESTS);
  assert.equal(spans.filter((s) => s.name === 'user').length, REQUESTS);
  let checked = 0;
  for (const span of spans) {
    if (span.name === 'request') {
      assert.equal(span.parentSpanContext, undefined);
      continue;
    }
    const parent = bySpanId.get(span.parentSpanContext?.spanId);
    assert.ok(parent, `${span.name} of request ${span.attributes.req} has a parent`);
    assert.equal(parent.attributes.req, span.attributes.req, `${span.name} of request ${span.attributes.req} has a parent from request ${parent.attributes.req}`);
    assert.equal(parent.spanContext().traceId, span.spanContext().traceId);
    assert.equal(parent.name, span.name === 'grandchild' ? 'child' : 'request');
    checked++;
  }
  assert.ok(checked > 4 * REQUESTS);
});

test('child tasks (Promise.all, setTimeout, EventEmitter, stream.pipeline) cannot change the parent stack', async () => {
  reset();
  await traced('parent', async () => {
    const parent = currentSpan();
    const stillParent = (where) => assert.equal(currentSpan(), parent, `parent not current after ${where}`);

    await Promise.all(
      [0, 1, 2].map((i) =>
        traced(`branch-${i}`, async () => {
          const own = currentSpan();
          await sleep(3 - i);
          assert.equal(currentSpan(), own, `branch ${i} sees another branch's span`);
          await traced(`leaf-${i}`, () => sleep(1))();
          assert.equal(currentSpan(), own);
        })(),
      ),
    );
    stillParent('Promise.all');

    // A child still inside its span while the parent goes on.
    const background = traced('background', () => sleep(5))();
    stillParent('starting a background child');
    await sleep(1);
    stillParent('a background child mid-span');
    await background;
    stillParent('a background child');

    await new Promise((resolve) => setTimeout(() => traced('timer', () => resolve(currentSpan()))(), 1));
    stillParent('setTimeout');

    const emitter = new EventEmitter();
    emitter.on(
      'event',
      traced('listener', () => assert.notEqual(currentSpan(), parent)),
    );
    emitter.emit('event');
    stillParent('EventEmitter');

    const seen = [];
    await pipeline(
      Readable.from([1, 2, 3]),
      new Transform({
        objectMode: true,
        transform(chunk, _enc, callback) {
          traced('chunk', async () => {
            await sleep(1);
            callback(null, chunk * 10);
          })();
        },
      }),
      new Writable({
        objectMode: true,
        write(chunk, _enc, callback) {
          seen.push(chunk);
          callback();
        },
      }),
    );
    assert.deepEqual(seen, [10, 20, 30]);
    stillParent('stream.pipeline');
  })();

  assert.equal(getTraceContext(), undefined);
  const parent = ids(only('parent'));
  for (const i of [0, 1, 2]) {
    const branch = ids(only(`branch-${i}`));
    assert.equal(branch.parentId, parent.spanId);
    assert.equal(ids(only(`leaf-${i}`)).parentId, branch.spanId, `leaf-${i} belongs to branch-${i}`);
  }
  for (const name of ['background', 'timer', 'listener']) assert.equal(ids(only(name)).parentId, parent.spanId, name);
  // A stream calls transform() for the next chunk from inside the previous chunk's callback, so
  // later chunks may nest under earlier ones (as with any AsyncLocalStorage), but never outside
  // the parent's trace, and the parent itself is untouched (checked above).
  const chunks = finished().filter((s) => s.name === 'chunk');
  assert.equal(chunks.length, 3);
  const chunkIds = new Set(chunks.map((c) => ids(c).spanId));
  assert.ok(chunks.some((c) => ids(c).parentId === parent.spanId));
  for (const chunk of chunks) {
    assert.equal(ids(chunk).traceId, parent.traceId);
    assert.ok(ids(chunk).parentId === parent.spanId || chunkIds.has(ids(chunk).parentId));
  }
});

test('an unsampled span inside a sampled one leaves the parent current; later attributes land on the parent', async () => {
  reset();
  await traced('sampled-parent', async () => {
    const parent = currentSpan();
    await traced('drop-async', async () => {
      const inner = currentSpan();
      assert.notEqual(inner, parent);
      assert.equal(inner.isRecording(), false);
      assert.equal(inner.spanContext().traceFlags & 1, 0, 'unsampled flag');
      assert.equal(inner.spanContext().traceId, parent.spanContext().traceId);
      assert.equal(setSpanAttributes({ inside: true }), false, 'attributes in the unsampled span are dropped, not put on the parent');
      await sleep(1);
    })();
    assert.equal(currentSpan(), parent);
    assert.equal(setSpanAttributes({ after: 'drop-async' }), true);

    assert.throws(
      () =>
        traced('drop-sync', () => {
          throw new Error('boom');
        })(),
      /boom/,
    );
    assert.equal(currentSpan(), parent);
    setSpanAttributes({ afterThrow: true });

    const gen = traced('drop-gen', function* () {
      yield 1;
      yield 2;
    })();
    assert.deepEqual([...gen], [1, 2]);
    assert.equal(currentSpan(), parent);

    await traced('sampled-child', () => setSpanAttributes({ child: true }))();
    setSpanAttributes({ last: true });
  })();

  const parent = only('sampled-parent');
  assert.deepEqual(
    { after: parent.attributes.after, afterThrow: parent.attributes.afterThrow, last: parent.attributes.last, inside: parent.attributes.inside },
    { after: 'drop-async', afterThrow: true, last: true, inside: undefined },
  );
  assert.equal(finished().filter((s) => s.name.startsWith('drop')).length, 0);
  const child = only('sampled-child');
  assert.equal(ids(child).parentId, ids(parent).spanId);
  assert.equal(child.attributes.child, true);
  assert.equal(parent.attributes.child, undefined);
});

test('after an exception inside traced(), the next request starts from a clean context', async () => {
  reset();
  const asyncError = new Error('async failure');
  const syncError = new TypeError('sync failure');
  const thrownObject = { code: 42 };

  await assert.rejects(
    traced('fails-async', async () => {
      await sleep(1);
      throw asyncError;
    })(),
    (err) => err === asyncError,
  );
  assert.equal(context.active(), ROOT_CONTEXT);
  assert.throws(
    () =>
      traced('fails-sync', () => {
        throw syncError;
      })(),
    (err) => err === syncError,
  );
  assert.equal(context.active(), ROOT_CONTEXT);
  assert.throws(
    () =>
      traced('fails-object', () => {
        throw thrownObject;
      })(),
    (err) => err === thrownObject,
  );
  assert.equal(getTraceContext(), undefined);

  // Same async chain, several requests in a row: an inner failure caught by the handler.
  for (let i = 0; i < 3; i++) {
    await traced('request', async () => {
      const own = currentSpan();
      await assert.rejects(
        traced('inner', async () => {
          throw asyncError;
        })(),
      );
      assert.equal(currentSpan(), own);
    })();
    assert.equal(getTraceContext(), undefined, `request ${i} left a context attached`);
  }
  await traced('next-request', async () => {})();

  const next = only('next-request');
  assert.equal(next.parentSpanContext, undefined);
  const requests = finished().filter((s) => s.name === 'request');
  assert.equal(requests.length, 3);
  for (const r of requests) assert.equal(r.parentSpanContext, undefined);
  const traceIds = new Set([...requests, next, only('fails-async'), only('fails-sync')].map((s) => s.spanContext().traceId));
  assert.equal(traceIds.size, 6, 'every request is a new trace');

  for (const [name, message, type] of [
    ['fails-async', 'async failure', 'Error'],
    ['fails-sync', 'sync failure', 'TypeError'],
  ]) {
    const span = only(name);
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message });
    assert.equal(span.events.length, 1);
    assert.equal(span.events[0].name, 'exception');
    assert.equal(span.events[0].attributes['exception.message'], message);
    assert.equal(span.events[0].attributes['exception.type'], type);
  }
  const objectSpan = only('fails-object');
  assert.equal(objectSpan.status.code, SpanStatusCode.ERROR);
  assert.equal(objectSpan.events[0].attributes['exception.type'], 'Object');
});

test('getTraceContext() is undefined outside a span and usable as a parent inside one', async () => {
  reset();
  assert.equal(getTraceContext(), undefined);
  const tracer = trace.getTracer('test-user');
  await traced('handler', async () => {
    await sleep(1);
    const ctx = getTraceContext();
    assert.ok(ctx);
    tracer.startActiveSpan('mine', {}, ctx, (span) => span.end());
  })();
  assert.equal(ids(only('mine')).parentId, ids(only('handler')).spanId);
});
