// The span-file encoder is otlp-transformer's JSON serializer, line for line: same bytes as
// JsonTraceSerializer.serializeRequest for the same spans (hex ids, events, links, status), except
// where that text is not valid OTLP/JSON (lone surrogates, integers beyond 2^53): every line is strict.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { spansToOtlpJson } from '../dist/exporters/json-trace-serializer.js';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { readStrictOtlpJsonLine } from './helpers/otlp-json-strict.mjs';

test("spansToOtlpJson gives exactly JsonTraceSerializer's request", () => {
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

// Issue 29 item 14c: one lone surrogate or 1e20 in an app's span made its whole line (up to 64 spans)
// invalid for a strict OTLP/JSON reader.
test("an app's lone surrogates and 1e20 leave every span-file line strict OTLP/JSON", async (t) => {
  const dir = spansDir(t);
  const result = await run('odd-values-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(result.code, 0, result.stderr);
  for (const file of readdirSync(dir)) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
    lines.forEach((line, i) => assert.doesNotThrow(() => readStrictOtlpJsonLine(line), `${file} line ${i + 1}`));
  }
  const spans = await readSpans(dir);
  assert.equal(spans.filter((s) => s.name.startsWith('plain-')).length, 99);
  const odd = spans.find((s) => s.name === 'odd \ufffd');
  const { lone, tail, big, wide } = odd.attributes;
  assert.deepEqual({ lone, tail, big, wide }, { lone: 'cut emoji \ufffd', tail: '\ufffd', big: 1e20, wide: 2n ** 60n });
});
