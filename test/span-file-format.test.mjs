// The span-file encoder is otlp-transformer's JSON serializer, line for line: same bytes as
// JsonTraceSerializer.serializeRequest for the same spans (hex ids, events, links, status).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { spansToOtlpJson } from '../dist/exporters/json-trace-serializer.js';

test('spansToOtlpJson gives exactly JsonTraceSerializer\'s request', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('format-test', '1.2.3');
  const parent = tracer.startSpan('parent', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', n: 3, ok: true, list: ['a', 'b'] } });
  const child = tracer.startSpan('child', { kind: SpanKind.CLIENT, links: [{ context: parent.spanContext(), attributes: { 'tracehook.batch.index': 0 } }] }, trace.setSpan(context.active(), parent));
  child.addEvent('retry', { attempt: 2 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  child.end();
  parent.end();
  const spans = exporter.getFinishedSpans();
  assert.equal(spans.length, 2);
  const expected = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
  assert.equal(spansToOtlpJson(spans), expected);
  const request = JSON.parse(expected);
  assert.match(request.resourceSpans[0].scopeSpans[0].spans[0].traceId, /^[0-9a-f]{32}$/);
});
