// TRACEHOOK_OTLP_ENCODER: the OTLP/HTTP exporters and span files encode straight from the spans
// (default `direct`) or with otlp-transformer (`stock`); what reaches a receiver is the same bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { readConfig } from '../dist/config/environment.js';
import { createOtlpSpanExporter } from '../dist/exporters/otlp-span-exporter.js';
import { stateKey } from '../dist/state-key.js';
import { decodeExportRequest } from '../dist/span-file/decode.js';
import { startReceiver } from './helpers/otlp-receiver.mjs';
import { readSpans, spansDir, start } from './helpers/fixture.mjs';

function someSpans() {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('encoder-test', '1.0.0');
  const parent = tracer.startSpan('GET /ünïcode 😀', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', n: 3, x: 1.5, ok: true, list: ['a', 'b'], nums: [1, 2.5] } });
  const child = tracer.startSpan('child', { kind: SpanKind.CLIENT, links: [{ context: parent.spanContext(), attributes: { i: 0 } }] }, trace.setSpan(context.active(), parent));
  child.addEvent('retry', { attempt: 2 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  child.end();
  parent.end();
  return memory.getFinishedSpans();
}

/** The body `createOtlpSpanExporter(protocol)` posts for `spans` with TRACEHOOK_OTLP_ENCODER=`encoder`. */
async function postedBody(protocol, encoder, spans) {
  const receiver = await startReceiver();
  // tracehook reads its configuration once per thread (src/config/current.ts): this test sets that
  // read; the OTLP exporter packages read OTEL_EXPORTER_OTLP_* from process.env themselves.
  const CONFIG_KEY = stateKey('config');
  const saved = { config: globalThis[CONFIG_KEY], env: { ...process.env } };
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, TRACEHOOK_OTLP_ENCODER: encoder };
  Object.assign(process.env, env);
  globalThis[CONFIG_KEY] = readConfig(process.env);
  try {
    const exporter = createOtlpSpanExporter(protocol);
    // The wrapped exporter: otlp-exporter-base's own class when assembled with the direct encoder
    // (a failure to assemble it would fall back to the stock exporter and prove nothing here).
    assert.equal(exporter.exporter.constructor.name, encoder === 'direct' ? 'OTLPExporterBase' : 'OTLPTraceExporter');
    const result = await new Promise((resolve) => exporter.export(spans, resolve));
    await exporter.shutdown();
    assert.equal(result.code, 0, String(result.error));
    assert.equal(receiver.requests.length, 1);
    return receiver.requests[0];
  } finally {
    globalThis[CONFIG_KEY] = saved.config;
    process.env = saved.env;
    await receiver.close();
  }
}

for (const protocol of ['http/protobuf', 'http/json']) {
  test(`OTLP ${protocol}: the direct encoder posts the same bytes and content type as the stock exporter`, async () => {
    const spans = someSpans();
    const direct = await postedBody(protocol, 'direct', spans);
    const stock = await postedBody(protocol, 'stock', spans);
    assert.equal(direct.url, '/v1/traces');
    assert.equal(direct.contentType, stock.contentType);
    assert.ok(direct.body.length > 200);
    assert.deepEqual(direct.body, stock.body);
    if (protocol === 'http/json')
      assert.deepEqual(
        decodeExportRequest(JSON.parse(direct.body.toString()))
          .map((s) => s.name)
          .sort(),
        ['GET /ünïcode 😀', 'child'],
      );
  });
}

test('span files: TRACEHOOK_OTLP_ENCODER=stock writes the same lines an app reads back; a bad value is one stderr line and direct', async (t) => {
  for (const encoder of ['stock', 'direct', 'fast']) {
    const dir = spansDir(t);
    const run = start('exit-app.mjs', { args: ['normal', '70'], env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_OTLP_ENCODER: encoder } });
    const { code, stderr } = await run.done;
    assert.equal(code, 0);
    const lines = stderr.split('\n').filter((l) => l.includes('TRACEHOOK_OTLP_ENCODER'));
    if (encoder === 'fast') {
      assert.equal(lines.length, 1, stderr);
      assert.match(lines[0], /TRACEHOOK_OTLP_ENCODER="fast" is not valid: expected `direct` or `stock`; using direct/);
    } else assert.equal(lines.length, 0, stderr);
    const spans = await readSpans(dir);
    assert.deepEqual(spans.map((s) => s.name).sort(), Array.from({ length: 70 }, (_, i) => `work-${i}`).sort());
  }
});
