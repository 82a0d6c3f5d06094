// Unit tests of src/processors/bounded-batch-span-processor.ts (the built dist/ module, fed by the SDK's
// BasicTracerProvider): what it holds once spans are exported, and what it exports.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { BoundedBatchSpanProcessor } from '../../dist/processors/bounded-batch-span-processor.js';
import { getTracingStats } from '../../dist/api.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const OPTIONS = { maxQueueBytes: 16 * 1024 * 1024, scheduledDelayMillis: 5000, maxExportBatchSize: 64, exportTimeoutMillis: 30_000, destination: 'test' };

/** A synchronous exporter, as the span-file exporter is; it keeps only the names of what it was given. */
function namesExporter() {
  const names = [];
  return { names, export: (spans, done) => (names.push(...spans.map((s) => s.name)), done({ code: 0 })), shutdown: () => Promise.resolve() };
}

/** Starts and ends `n` spans; WeakRefs to them. */
function endSpans(tracer, n) {
  const refs = [];
  for (let i = 0; i < n; i++) {
    const span = tracer.startSpan(`span ${i}`);
    span.end();
    refs.push(new WeakRef(span));
  }
  return refs;
}

test('exported spans are let go at once: the processor holds no reference to a span it has exported', async () => {
  const exporter = namesExporter();
  const processor = new BoundedBatchSpanProcessor(exporter, OPTIONS);
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
  // Fewer than the 1024 exported spans after which the queue used to be compacted. Made in a function of their own:
  // an async function's registers would keep its last local alive across the awaits.
  const refs = endSpans(tracer, 300);
  await processor.forceFlush();
  assert.equal(exporter.names.length, 300);
  assert.deepEqual(exporter.names.slice(0, 2), ['span 0', 'span 1']);
  // Collected only once nothing but the WeakRefs holds them; a later turn, so no stack slot does either.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  const alive = refs.filter((r) => r.deref() !== undefined).length;
  assert.equal(alive, 0, `${alive} of 300 exported spans are still referenced`);
});

test('a queue that drained is used again: two flushes export every span once, in order', async () => {
  const exporter = namesExporter();
  const processor = new BoundedBatchSpanProcessor(exporter, OPTIONS);
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
  for (let i = 0; i < 700; i++) tracer.startSpan(`a ${i}`).end();
  await processor.forceFlush();
  for (let i = 0; i < 130; i++) tracer.startSpan(`b ${i}`).end();
  await processor.forceFlush();
  assert.deepEqual(exporter.names, [...Array.from({ length: 700 }, (_, i) => `a ${i}`), ...Array.from({ length: 130 }, (_, i) => `b ${i}`)]);
});

/** Ends `n` spans through `processor` (nothing flushed); the exporter's batches, by size, and the spans dropped for a full queue. */
async function feed(options, n) {
  const batches = [];
  const exporter = { export: (spans, done) => (batches.push(spans.length), done({ code: 0 })), shutdown: () => Promise.resolve() };
  const processor = new BoundedBatchSpanProcessor(exporter, { destination: 'test', ...options });
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
  const before = getTracingStats().dropped.queueFull;
  for (let i = 0; i < n; i++) tracer.startSpan(`s ${i}`).end();
  const dropped = getTracingStats().dropped.queueFull - before;
  await processor.forceFlush();
  return { batches, dropped };
}

test("the SDK's option names: maxQueueSize bounds the queue in spans, maxExportBatchSize the spans per export; the rest default as the SDK's", async () => {
  assert.deepEqual(await feed({ maxQueueSize: 3, scheduledDelayMillis: 60_000 }, 5), { batches: [3], dropped: 2 });
  assert.deepEqual(await feed({ maxExportBatchSize: 2, scheduledDelayMillis: 60_000 }, 5), { batches: [2, 2, 1], dropped: 0 });
  assert.deepEqual(await feed({}, 5), { batches: [5], dropped: 0 });
});

test('the deprecated option names maxQueueSpans, scheduledDelayMs, exportTimeoutMs and spansPerExport still work', async () => {
  assert.deepEqual(await feed({ maxQueueSpans: 3, scheduledDelayMs: 60_000, exportTimeoutMs: 1000 }, 5), { batches: [3], dropped: 2 });
  assert.deepEqual(await feed({ spansPerExport: 2, scheduledDelayMs: 60_000 }, 5), { batches: [2, 2, 1], dropped: 0 });
  // scheduledDelayMs: a span alone is exported when the delay passes, with no flush.
  const batches = [];
  const exporter = { export: (spans, done) => (batches.push(spans.length), done({ code: 0 })), shutdown: () => Promise.resolve() };
  const processor = new BoundedBatchSpanProcessor(exporter, { destination: 'test', scheduledDelayMs: 1 });
  new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t').startSpan('alone').end();
  while (batches.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(batches, [1]);
});

// Issue 30: no turn of the event loop spends more than ≈ 1 ms on export, whatever is queued (it was up to 50 ms).
test('a synchronous exporter is fed in slices of ≈ 1 ms of export per turn of the event loop, then the next turn', async () => {
  const turns = [];
  let current = 0;
  const exporter = {
    export(spans, done) {
      if (current++ === 0) process.nextTick(() => (turns.push(current), (current = 0)));
      // Each batch costs 0.4 ms of CPU, as a 64-span line of large spans does.
      const until = performance.now() + 0.4;
      while (performance.now() < until);
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
  const processor = new BoundedBatchSpanProcessor(exporter, { ...OPTIONS, scheduledDelayMillis: 60_000 });
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
  // Long after the processor's last slice: a slice used to be as long as the time since then, up to 50 ms.
  await new Promise((resolve) => setTimeout(resolve, 60));
  endSpans(tracer, 64 * 10);
  while (turns.reduce((a, b) => a + b, 0) < 10) await new Promise((resolve) => setImmediate(resolve));
  // 1 ms of batches of 0.4 ms: three at most (fewer when the machine preempts the thread).
  assert.ok(Math.max(...turns) <= 3, `batches per turn: ${turns.join(', ')}`);
  assert.ok(turns.length >= 4, `batches per turn: ${turns.join(', ')}`);
});
