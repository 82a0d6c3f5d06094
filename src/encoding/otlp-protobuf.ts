import type { Attributes, Link } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { hrTimeToFixed64 } from './hrtime.js';
import { ProtobufWriter } from './protobuf-writer.js';
import { fitsInt64, groupSpans, scopeIdentity, spanFlags } from './span-groups.js';

const LENGTH = 2;
const VARINT = 0;
const FIXED64 = 1;
const FIXED32 = 5;

const writer = new ProtobufWriter();
const time: [number, number] = [0, 0];

/**
 * Encodes spans as one OTLP/protobuf `ExportTraceServiceRequest` straight from the `ReadableSpan`
 * interface in one pass over a reused buffer: the same bytes as @opentelemetry/otlp-transformer's
 * `ProtobufTraceSerializer.serializeRequest` for the same spans (same field order, same fields left
 * out when empty, integers in the int64 range as `int_value`, other numbers as `double_value`,
 * spans grouped by resource and then by scope object, in first-seen order).
 * @returns a new `Uint8Array` the caller owns
 * @see OpenTelemetry protocol, opentelemetry/proto/collector/trace/v1/trace_service.proto
 */
export function encodeOtlpProtobuf(spans: readonly ReadableSpan[]): Uint8Array {
  const w = writer;
  w.reset();
  for (const [resource, byScope] of groupSpans(spans, scopeIdentity)) {
    w.tag(1, LENGTH);
    const resourceSpans = w.begin();
    w.tag(1, LENGTH);
    const res = w.begin();
    if (resource.attributes) writeAttributes(w, resource.attributes, 1);
    w.tag(2, VARINT);
    w.varint(0);
    w.end(res);
    for (const group of byScope.values()) {
      w.tag(2, LENGTH);
      writeScopeSpans(w, group[0].instrumentationScope, group);
    }
    if (resource.schemaUrl) {
      w.tag(3, LENGTH);
      w.string(resource.schemaUrl);
    }
    w.end(resourceSpans);
  }
  return w.finish();
}

function writeScopeSpans(w: ProtobufWriter, scope: InstrumentationScope, spans: ReadableSpan[]): void {
  const at = w.begin();
  w.tag(1, LENGTH);
  const s = w.begin();
  w.tag(1, LENGTH);
  w.string(scope.name);
  if (scope.version) {
    w.tag(2, LENGTH);
    w.string(scope.version);
  }
  const extra = scope as { attributes?: Attributes; droppedAttributesCount?: number };
  if (extra.attributes) writeAttributes(w, extra.attributes, 3);
  if (extra.droppedAttributesCount) {
    w.tag(4, VARINT);
    w.varint(extra.droppedAttributesCount);
  }
  w.end(s);
  for (const span of spans) {
    w.tag(2, LENGTH);
    writeSpan(w, span);
  }
  if (scope.schemaUrl) {
    w.tag(3, LENGTH);
    w.string(scope.schemaUrl);
  }
  w.end(at);
}

function writeSpan(w: ProtobufWriter, span: ReadableSpan): void {
  const at = w.begin();
  const ctx = span.spanContext();
  w.tag(1, LENGTH);
  w.hexBytes(ctx.traceId);
  w.tag(2, LENGTH);
  w.hexBytes(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(3, LENGTH);
    w.string(traceState);
  }
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    w.tag(4, LENGTH);
    w.hexBytes(parent.spanId);
  }
  w.tag(5, LENGTH);
  w.string(span.name);
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) {
    w.tag(6, VARINT);
    w.varint(kind);
  }
  writeTime(w, 7, span.startTime);
  writeTime(w, 8, span.endTime);
  if (span.attributes) writeAttributes(w, span.attributes, 9);
  w.tag(10, VARINT);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    w.tag(11, LENGTH);
    writeEvent(w, event);
  }
  w.tag(12, VARINT);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) {
    w.tag(13, LENGTH);
    writeLink(w, link);
  }
  w.tag(14, VARINT);
  w.varint(span.droppedLinksCount);
  w.tag(15, LENGTH);
  const status = w.begin();
  if (span.status.message) {
    w.tag(2, LENGTH);
    w.string(span.status.message);
  }
  w.tag(3, VARINT);
  w.varint(span.status.code);
  w.end(status);
  w.tag(16, FIXED32);
  w.fixed32(spanFlags(ctx.traceFlags, parent?.isRemote));
  w.end(at);
}

function writeEvent(w: ProtobufWriter, event: TimedEvent): void {
  const at = w.begin();
  writeTime(w, 1, event.time);
  w.tag(2, LENGTH);
  w.string(event.name);
  if (event.attributes) writeAttributes(w, event.attributes, 3);
  w.tag(4, VARINT);
  w.varint(event.droppedAttributesCount || 0);
  w.end(at);
}

function writeLink(w: ProtobufWriter, link: Link): void {
  const at = w.begin();
  const c = link.context;
  w.tag(1, LENGTH);
  w.hexBytes(c.traceId);
  w.tag(2, LENGTH);
  w.hexBytes(c.spanId);
  const traceState = c.traceState?.serialize();
  if (traceState) {
    w.tag(3, LENGTH);
    w.string(traceState);
  }
  if (link.attributes) writeAttributes(w, link.attributes, 4);
  w.tag(5, VARINT);
  w.varint(link.droppedAttributesCount || 0);
  w.tag(6, FIXED32);
  w.fixed32(spanFlags(c.traceFlags, c.isRemote));
  w.end(at);
}

function writeTime(w: ProtobufWriter, field: number, t: ReadableSpan['startTime']): void {
  w.tag(field, FIXED64);
  hrTimeToFixed64(t, time);
  w.fixed64(time[0], time[1]);
}

function writeAttributes(w: ProtobufWriter, attrs: Attributes, field: number): void {
  for (const key in attrs) {
    if (!Object.prototype.hasOwnProperty.call(attrs, key)) continue;
    w.tag(field, LENGTH);
    writeKeyValue(w, key, attrs[key]);
  }
}

function writeKeyValue(w: ProtobufWriter, key: string, value: unknown): void {
  const at = w.begin();
  w.tag(1, LENGTH);
  w.string(key);
  w.tag(2, LENGTH);
  const v = w.begin();
  writeAnyValue(w, value);
  w.end(v);
  w.end(at);
}

/** otlp-transformer's `writeAnyValue`: what it cannot type is an empty AnyValue. */
function writeAnyValue(w: ProtobufWriter, value: unknown): void {
  switch (typeof value) {
    case 'string':
      w.tag(1, LENGTH);
      w.string(value);
      return;
    case 'boolean':
      w.tag(2, VARINT);
      w.varint(value ? 1 : 0);
      return;
    case 'number':
      if (fitsInt64(value)) {
        w.tag(3, VARINT);
        w.varint(value);
      } else {
        w.tag(4, FIXED64);
        w.double(value);
      }
      return;
  }
  if (value instanceof Uint8Array) {
    w.tag(7, LENGTH);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, LENGTH);
    const at = w.begin();
    for (const item of value) {
      w.tag(1, LENGTH);
      const v = w.begin();
      writeAnyValue(w, item);
      w.end(v);
    }
    w.end(at);
  } else if (typeof value === 'object' && value !== null) {
    w.tag(6, LENGTH);
    const at = w.begin();
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      w.tag(1, LENGTH);
      writeKeyValue(w, key, (value as Record<string, unknown>)[key]);
    }
    w.end(at);
  }
}
