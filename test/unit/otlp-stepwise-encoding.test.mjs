// OTLP/HTTP requests encoded a few spans per turn of the event loop (src/encoding/request-encoding.ts, the span
// processor's slices): the same bytes as the one-shot encoders, and a processor that encodes a 512-span request
// over many turns and hands export() the batch with its request ready, through the real direct exporter to a receiver.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { BoundedBatchSpanProcessor } from '../../dist/processors/bounded-batch-span-processor.js';
import { createDirectOtlpHttpExporter } from '../../dist/exporters/direct-otlp-http-exporter.js';
import { ExitSafeSpanExporter } from '../../dist/exporters/exit-safe-span-exporter.js';
import { encodeOtlpJsonBytes, encodeOtlpJsonStepwise } from '../../dist/encoding/otlp-json.js';
import { encodeOtlpProtobuf, encodeOtlpProtobufStepwise } from '../../dist/encoding/otlp-protobuf.js';
import { getPreloadState } from '../../dist/state.js';
import { encodedRequestOf } from '../../dist/exporters/encoded-request.js';
import { getTracingStats } from '../../dist/api.js';
import { decodeOtlpProtobuf } from '../helpers/otlp-proto.mjs';
import { startReceiver } from '../helpers/otlp-receiver.mjs';

/** Ended spans from two resources and three scopes, interleaved, with attributes, events and links. */
function mixedSpans(n) {
  const recorded = [];
  const processor = { onStart() {}, onEnd: (s) => recorded.push(s), forceFlush: async () => {}, shutdown: async () => {} };
  const providers = ['alpha', 'beta'].map((service) => new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': service }), spanProcessors: [processor] }));
  const tracers = providers.flatMap((p) => [p.getTracer('one', '1.0.0'), p.getTracer('two')]);
  let previous;
  for (let i = 0; i < n; i++) {
    const span = tracers[(i * 7) % tracers.length].startSpan(`span ${i}`, {
      attributes: { i, odd: i % 2 === 1, ratio: i / 3, tags: ['a', `é${i}`], 'url.path': `/items/${i}` },
      links: previous ? [{ context: previous.spanContext(), attributes: { n: i } }] : [],
    });
    span.addEvent('mark', { at: i });
    span.end();
    previous = span;
  }
  return recorded;
}

for (const [name, stepwise, oneShot] of [
  ['protobuf', encodeOtlpProtobufStepwise, encodeOtlpProtobuf],
  ['JSON', encodeOtlpJsonStepwise, encodeOtlpJsonBytes],
]) {
  test(`${name}: a request encoded stepwise is byte for byte the one-shot request, whatever the step sizes and however encodings interleave`, () => {
    const spans = mixedSpans(300);
    const expected = Buffer.from(oneShot(spans));
    for (const step of [1, 7, 16, 64, 1000]) {
      const a = stepwise(spans);
      const b = stepwise(spans.slice(0, 50));
      let bytes;
      let bBytes;
      let steps = 0;
      while (!(bytes = a.next(step))) {
        steps++;
        // Another stepwise encoding and a one-shot one between the steps: neither disturbs this one.
        bBytes ??= b.next(step);
        oneShot(spans.slice(0, 3));
      }
      assert.ok(steps >= Math.floor(300 / step), `${steps} steps of ${step}`);
      assert.deepEqual(Buffer.from(bytes), expected);
      while (!bBytes) bBytes = b.next(step);
      assert.deepEqual(Buffer.from(bBytes), Buffer.from(oneShot(spans.slice(0, 50))));
    }
  });
}

/** The direct OTLP/HTTP protobuf exporter to `receiver`, wrapped as the preload wraps it. */
function otlpExporter(receiver) {
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${receiver.port}/v1/traces`;
  const direct = createDirectOtlpHttpExporter('@opentelemetry/exporter-trace-otlp-proto', 'http/protobuf', { concurrencyLimit: 4 });
  const url = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return new ExitSafeSpanExporter(direct, { protocol: 'http', url, headers: {}, timeoutMs: 10_000 });
}

/** `exporter` with each export() call recorded: the turn of the event loop it came in and the batch. */
function recording(exporter, turn) {
  const calls = [];
  const recorder = Object.create(exporter);
  recorder.export = (spans, done) => {
    calls.push({ turn: turn(), spans, encoded: encodedRequestOf(spans) });
    exporter.export(spans, done);
  };
  return { recorder, calls };
}

test('the span processor encodes a 512-span OTLP request over many turns: export() gets the batch with its request ready, the bytes the one-shot encoder makes', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  const { recorder, calls } = recording(otlpExporter(receiver), () => turn);
  // A budget of 0 ms: one step per turn, whatever the machine's speed.
  const processor = new BoundedBatchSpanProcessor(recorder, { destination: 'test', maxExportBatchSize: 512, scheduledDelayMillis: 60_000, sliceMillis: 0 });
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
  setImmediate(tick);
  for (let i = 0; i < 512; i++) tracer.startSpan(`s${i}`, { attributes: { i } }).end();
  await processor.forceFlush();
  ticking = false;
  assert.equal(calls.length, 1);
  const [call] = calls;
  assert.equal(call.spans.length, 512);
  // 512 spans in pieces of 16, one piece per turn (before: the whole request inside export(), in the first turn).
  assert.ok(call.turn >= 512 / 16, `export() in turn ${call.turn}`);
  assert.ok(call.encoded instanceof Uint8Array, 'the batch carries its request');
  assert.deepEqual(Buffer.from(call.encoded), Buffer.from(encodeOtlpProtobuf(call.spans)));
  const received = receiver.requests.flatMap((r) => decodeOtlpProtobuf(r.body));
  assert.deepEqual(
    received.map((s) => s.attributes.i),
    Array.from({ length: 512 }, (_, i) => i),
  );
  await processor.shutdown();
});

test('a batch whose request is still being encoded when exports turn synchronous (exit) is handed to the exit path at once, whole', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const { recorder, calls } = recording(otlpExporter(receiver), () => 0);
  const processor = new BoundedBatchSpanProcessor(recorder, { destination: 'test', maxExportBatchSize: 512, scheduledDelayMillis: 60_000, sliceMillis: 0 });
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
  for (let i = 0; i < 600; i++) tracer.startSpan(`s${i}`).end();
  // A few turns: the first batch's request is being encoded, not yet exported.
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calls.length, 0);
  const state = getPreloadState();
  state.synchronousExport = true;
  // The exit bound already reached: the exit path counts the spans rather than start its sender (whose request
  // this thread, blocked in it, could not answer).
  state.exitDeadline = Date.now() - 1;
  try {
    await processor.forceFlush();
  } finally {
    state.synchronousExport = undefined;
    state.exitDeadline = undefined;
  }
  assert.deepEqual(
    calls.map((c) => [c.spans.length, c.encoded]),
    [
      [512, undefined],
      [88, undefined],
    ],
  );
});

test('a span the encoder cannot encode fails its batch as export failed, counted, and throws nothing into the app', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const processor = new BoundedBatchSpanProcessor(otlpExporter(receiver), { destination: 'test', maxExportBatchSize: 64, scheduledDelayMillis: 60_000 });
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('t');
  const uncaught = [];
  const onUncaught = (err) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  t.after(() => process.off('uncaughtException', onUncaught));
  const before = getTracingStats().dropped.exportFailed;
  for (let i = 0; i < 64; i++) {
    const span = tracer.startSpan(`s${i}`);
    span.end();
    // An attribute whose read throws, as a broken span implementation might hand over.
    if (i === 40) Object.defineProperty(span.attributes, 'boom', { enumerable: true, get: () => assert.fail('read') });
  }
  await processor.forceFlush();
  assert.deepEqual(uncaught, []);
  assert.equal(getTracingStats().dropped.exportFailed - before, 64);
  assert.equal(receiver.requests.length, 0);
});
