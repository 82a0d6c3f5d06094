// The direct OTLP encoders (src/encoding/) against @opentelemetry/otlp-transformer, byte for byte:
// generated batches of spans (only the public ReadableSpan interface) with every attribute kind,
// events, links, status, dropped counts, odd strings and times, several resources and scopes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteLine } from '../dist/encoding/byte-line.js';
import { encodeOtlpJson, encodeOtlpJsonBytes, encodeOtlpJsonInto } from '../dist/encoding/otlp-json.js';
import { FileSpanExporter } from '../dist/exporters/file-span-exporter.js';
import { encodeOtlpProtobuf } from '../dist/encoding/otlp-protobuf.js';
import { spansToOtlpJson, stockSpansToOtlpJson } from '../dist/exporters/json-trace-serializer.js';
import { decodeExportRequest } from '../dist/span-file/decode.js';
import { readStrictOtlpJsonLine } from './helpers/otlp-json-strict.mjs';
import { decodeOtlpProtobuf } from './helpers/otlp-proto.mjs';

const RUNS = 400;

// Strings: any code point (astral included), lone surrogates, JSON escapes, control characters.
const oddUnit = fc.constantFrom('\ud800', '\udfff', '\ud83d', '\ude00', '😀', 'é', 'ß', '中', '"', '\\', '\n', '\u0000', '\u001f', '\u2028', 'a', 'Z', ' ');
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.string({ unit: oddUnit, maxLength: 10 }));
const hex = (n) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n });

const int = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -0, 1, -1, 127, 128, 2 ** 31, 2 ** 32, -(2 ** 32), 2 ** 53, -(2 ** 53), 2 ** 62, -(2 ** 63), 2 ** 63, 2 ** 64, 1e21, -1e300),
);
const double = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 0.1, 1.5, -2.5e-308, Number.MIN_VALUE, Number.EPSILON));

// The span generators over the given string and number generators.
function arbitraries(text, int, double) {
  const primitive = fc.oneof(text, fc.boolean(), int, double);
  const withHoles = (arb) => fc.array(fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: fc.constantFrom(null, undefined) }), { maxLength: 4 });
  const attributeValue = fc.oneof(
    { weight: 6, arbitrary: primitive },
    fc.array(text, { maxLength: 4 }),
    fc.array(fc.boolean(), { maxLength: 4 }),
    fc.array(int, { maxLength: 4 }),
    fc.array(double, { maxLength: 4 }),
    withHoles(primitive),
    fc.constant([]),
    fc.constant(undefined),
  );
  const attributeKey = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('http.request.method', 'url.path', 'n', 'ok', '0', '10', 'é') }, text);
  const attributes = fc.dictionary(attributeKey, attributeValue, { maxKeys: 6 });

  // Whole non-negative parts as the SDK makes them, plus fractional and overflowing nanoseconds.
  const hrTime = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(fc.integer({ min: 0, max: 2 ** 33 }), fc.integer({ min: 0, max: 999_999_999 })) },
    fc.tuple(fc.constantFrom(0, 1, 1_700_000_000), fc.oneof(fc.integer({ min: 0, max: 3e9 }), fc.double({ min: 0, max: 2e9, noNaN: true }))),
  );
  const traceState = fc.option(
    fc
      .array(fc.tuple(fc.constantFrom('vendor', 'rojo', 'congo', 'a1'), fc.constantFrom('t61rcWkgMzE', 'x', '00f067aa0ba902b7')), { maxLength: 3 })
      .map((entries) => new TraceState(entries.map(([k, v]) => `${k}=${v}`).join(','))),
    { nil: undefined },
  );
  const spanContext = fc.record({ traceId: hex(32), spanId: hex(16), traceFlags: fc.constantFrom(0, 1, 0xff), isRemote: fc.option(fc.boolean(), { nil: undefined }), traceState });
  const optionalCount = fc.option(fc.nat(300), { nil: undefined });
  const event = fc.record({ name: text, time: hrTime, attributes: fc.option(attributes, { nil: undefined }), droppedAttributesCount: optionalCount }, { requiredKeys: ['name', 'time'] });
  const link = fc.record({ context: spanContext, attributes: fc.option(attributes, { nil: undefined }), droppedAttributesCount: optionalCount }, { requiredKeys: ['context'] });

  const resources = [
    { attributes: { 'service.name': 'svc', 'process.pid': 42, 'host.arch': 'amd64' } },
    { attributes: { 'service.name': 'другой 😀', tags: ['a', 'b'] }, schemaUrl: 'https://opentelemetry.io/schemas/1.24.0' },
    { attributes: {}, schemaUrl: '' },
  ];
  const scopes = [
    { name: 'tracehook-http', version: '1.0.0' },
    { name: 'tracehook-http', version: '1.0.0' }, // equal to the one above, another object: JSON merges, protobuf does not
    { name: '@opentelemetry/instrumentation-undici', schemaUrl: 'https://opentelemetry.io/schemas/1.27.0' },
    { name: 'scoped', version: '', schemaUrl: '', attributes: { 'scope.attr': 1.5 } },
    { name: 'é 中', version: '2', attributes: { x: 'y' }, droppedAttributesCount: 3 },
  ];

  const span = fc
    .record({
      name: text,
      ctx: spanContext,
      parent: fc.option(fc.record({ spanId: fc.oneof(hex(16), fc.constant('')), isRemote: fc.option(fc.boolean(), { nil: undefined }) }), { nil: undefined }),
      kind: fc.option(fc.constantFrom(0, 1, 2, 3, 4), { nil: undefined }),
      startTime: hrTime,
      endTime: hrTime,
      attributes,
      events: fc.array(event, { maxLength: 3 }),
      links: fc.array(link, { maxLength: 3 }),
      status: fc.record({ code: fc.constantFrom(0, 1, 2), message: fc.option(text, { nil: undefined }) }, { requiredKeys: ['code'] }),
      droppedAttributesCount: fc.nat(1000),
      droppedEventsCount: fc.nat(1000),
      droppedLinksCount: fc.oneof(fc.nat(1000), fc.constant(2 ** 31)),
      resource: fc.nat(resources.length - 1),
      scope: fc.nat(scopes.length - 1),
    })
    .map((s) => ({
      name: s.name,
      kind: s.kind,
      spanContext: () => s.ctx,
      parentSpanContext: s.parent && { traceId: s.ctx.traceId, traceFlags: 1, ...s.parent },
      startTime: s.startTime,
      endTime: s.endTime,
      duration: [0, 0],
      ended: true,
      status: s.status,
      attributes: s.attributes,
      events: s.events,
      links: s.links,
      resource: resources[s.resource],
      instrumentationScope: scopes[s.scope],
      droppedAttributesCount: s.droppedAttributesCount,
      droppedEventsCount: s.droppedEventsCount,
      droppedLinksCount: s.droppedLinksCount,
    }));
  const batch = fc.array(span, { minLength: 0, maxLength: 8 });
  return { span, batch };
}

const { span, batch } = arbitraries(text, int, double);
// Byte identity with otlp-transformer's JSON text holds where its text is valid OTLP/JSON: the encoder
// deliberately differs for lone surrogates and integers beyond 2^53 (tested below, against the protobuf encoding).
const safe = (n) => !Number.isInteger(n) || Number.isSafeInteger(n);
const jsonBatch = arbitraries(
  text.map((s) => s.toWellFormed()),
  int.filter(safe),
  double.filter(safe),
).batch;

test("OTLP/JSON: the direct encoder gives JsonTraceSerializer's bytes for any batch of well-formed strings and safe integers", () => {
  fc.assert(
    fc.property(jsonBatch, (spans) => {
      const expected = Buffer.from(JsonTraceSerializer.serializeRequest(spans));
      assert.deepEqual(Buffer.from(encodeOtlpJson(spans)), expected);
      assert.equal(spansToOtlpJson(spans), stockSpansToOtlpJson(spans));
    }),
    { numRuns: RUNS },
  );
});

test("OTLP/JSON in place: a reused buffer and the span-file lines hold JsonTraceSerializer's bytes, line after line", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-encode-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const exporter = new FileSpanExporter(dir, 'lines.jsonl');
  const line = new ByteLine();
  const expectedFile = [];
  fc.assert(
    fc.property(jsonBatch, (spans) => {
      const expected = Buffer.from(JsonTraceSerializer.serializeRequest(spans));
      // After whatever the buffer held: the request is appended, the bytes before it untouched.
      const before = line.length;
      const prefix = Buffer.from(line.buffer.subarray(0, before));
      encodeOtlpJsonInto(spans, line);
      assert.deepEqual(Buffer.from(line.buffer.subarray(before, line.length)), expected);
      assert.deepEqual(Buffer.from(line.buffer.subarray(0, before)), prefix);
      if (line.length > 100_000) line.reset();
      assert.deepEqual(encodeOtlpJsonBytes(spans), expected);
      let result;
      exporter.export(spans.slice(), (r) => (result = r));
      assert.equal(result.code, 0);
      // An empty batch writes no line.
      if (spans.length > 0) expectedFile.push(expected, Buffer.from('\n'));
    }),
    { numRuns: RUNS },
  );
  assert.deepEqual(readFileSync(join(dir, 'lines.jsonl')), Buffer.concat(expectedFile));
});

test("OTLP/protobuf: the direct encoder gives ProtobufTraceSerializer's bytes for any batch", () => {
  fc.assert(
    fc.property(batch, (spans) => {
      const expected = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans));
      assert.deepEqual(Buffer.from(encodeOtlpProtobuf(spans)), expected);
    }),
    { numRuns: RUNS },
  );
});

test('OTLP/protobuf: requests larger than the reused buffer, and one after it, stay identical', () => {
  const big = fc.sample(span, { numRuns: 600, seed: 7 });
  assert.deepEqual(Buffer.from(encodeOtlpProtobuf(big)), Buffer.from(ProtobufTraceSerializer.serializeRequest(big)));
  const small = big.slice(0, 2);
  assert.deepEqual(Buffer.from(encodeOtlpProtobuf(small)), Buffer.from(ProtobufTraceSerializer.serializeRequest(small)));
  assert.ok(encodeOtlpProtobuf(big).length > 16 * 1024);
  // Past 1 MiB the buffer is dropped after use: the next request starts small and is still right.
  const huge = [{ ...big[0], attributes: { blob: 'x'.repeat(2 * 1024 * 1024), é: 'é'.repeat(1000) } }];
  assert.deepEqual(Buffer.from(encodeOtlpProtobuf(huge)), Buffer.from(ProtobufTraceSerializer.serializeRequest(huge)));
  assert.deepEqual(Buffer.from(encodeOtlpProtobuf(small)), Buffer.from(ProtobufTraceSerializer.serializeRequest(small)));
});

// Issue 29 item 14c: one lone surrogate or 1e20 in an app's attribute made the whole request (a span
// file's 64-span line) invalid for a strict reader.
test('OTLP/JSON: every request is strict OTLP/JSON, whatever the strings and numbers', () => {
  fc.assert(
    fc.property(batch, (spans) => {
      readStrictOtlpJsonLine(encodeOtlpJson(spans.map(withoutResourceSchemaUrl)));
    }),
    { numRuns: RUNS },
  );
});

test('OTLP/JSON: lone surrogates and integers beyond 2^53 decode as the protobuf encoding does', () => {
  const [one] = fc.sample(span, { numRuns: 1, seed: 3 });
  const attributes = { lone: 'a\ud800b\udfff', big: 1e20, huge: -1e300, wide: 2 ** 60, min: -(2 ** 63), max: 2 ** 63, safe: 2 ** 53 - 1 };
  const spans = [{ ...one, name: '\ude00 name', attributes, events: [], links: [], status: { code: 2, message: '\ud83d' } }];
  const fromJson = decodeExportRequest(JSON.parse(encodeOtlpJson(spans)));
  assert.deepEqual(fromJson, decodeOtlpProtobuf(encodeOtlpProtobuf(spans)));
  assert.equal(fromJson[0].name, '\ufffd name');
  assert.equal(fromJson[0].status.message, '\ufffd');
  assert.deepEqual({ ...fromJson[0].attributes }, { lone: 'a\ufffdb\ufffd', big: 1e20, huge: -1e300, wide: 2n ** 60n, min: -(2n ** 63n), max: 2 ** 63, safe: 2 ** 53 - 1 });
});

// otlp-transformer's JSON writes a resource's schema URL inside `resource`, a field Resource does
// not have (opentelemetry-proto 1.7.0): left as it is (tracehook's own resources have none).
const bareResources = new Map();
function withoutResourceSchemaUrl(span) {
  const { resource } = span;
  if (!bareResources.has(resource)) bareResources.set(resource, { attributes: resource.attributes });
  return { ...span, resource: bareResources.get(resource) };
}
