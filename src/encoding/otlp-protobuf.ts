import type { Attributes, Link } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { hrTimeToFixed64 } from './hrtime.js';
import { ProtobufWriter } from './protobuf-writer.js';
import type { RequestEncoding } from './request-encoding.js';
import { complete, stepwise } from './request-encoding.js';
import { fitsInt64, groupSpans, scopeIdentity, spanFlags } from './span-groups.js';

const LENGTH = 2;
const VARINT = 0;
const FIXED64 = 1;
const FIXED32 = 5;

// Field numbers of the OTLP messages written here, named as in opentelemetry/proto (trace/v1/trace.proto,
// common/v1/common.proto, resource/v1/resource.proto, collector/trace/v1/trace_service.proto).
const ExportTraceServiceRequest = { ResourceSpans: 1 } as const;
const ResourceSpans = { Resource: 1, ScopeSpans: 2, SchemaUrl: 3 } as const;
const Resource = { Attributes: 1, DroppedAttributesCount: 2 } as const;
const ScopeSpans = { Scope: 1, Spans: 2, SchemaUrl: 3 } as const;
const Scope = { Name: 1, Version: 2, Attributes: 3, DroppedAttributesCount: 4 } as const; // InstrumentationScope
const Span = {
  TraceId: 1,
  SpanId: 2,
  TraceState: 3,
  ParentSpanId: 4,
  Name: 5,
  Kind: 6,
  StartTimeUnixNano: 7,
  EndTimeUnixNano: 8,
  Attributes: 9,
  DroppedAttributesCount: 10,
  Events: 11,
  DroppedEventsCount: 12,
  Links: 13,
  DroppedLinksCount: 14,
  Status: 15,
  Flags: 16,
} as const;
const SpanEvent = { TimeUnixNano: 1, Name: 2, Attributes: 3, DroppedAttributesCount: 4 } as const;
const SpanLink = { TraceId: 1, SpanId: 2, TraceState: 3, Attributes: 4, DroppedAttributesCount: 5, Flags: 6 } as const;
const Status = { Message: 2, Code: 3 } as const;
const KeyValue = { Key: 1, Value: 2 } as const;
const AnyValue = { StringValue: 1, BoolValue: 2, IntValue: 3, DoubleValue: 4, ArrayValue: 5, KvlistValue: 6, BytesValue: 7 } as const;
/** `ArrayValue.values` and `KeyValueList.values`. */
const VALUES = 1;

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
  writer.reset();
  complete(writeRequest(writer, spans));
  return writer.finish();
}

/**
 * {@link encodeOtlpProtobuf}'s request encoded a few spans at a time ({@link RequestEncoding}): the same bytes,
 * in a buffer of the encoding's own, so the turns in between may encode other requests.
 */
export function encodeOtlpProtobufStepwise(spans: readonly ReadableSpan[]): RequestEncoding {
  return stepwise(
    pool,
    () => new ProtobufWriter(),
    (w) => writeRequest(w, spans),
    (w) => w.finish(),
  );
}

const pool: ProtobufWriter[] = [];

/** Writes the request of `spans` into `w`, pausing after each span. */
function* writeRequest(w: ProtobufWriter, spans: readonly ReadableSpan[]): Generator<void, void, void> {
  for (const [resource, byScope] of groupSpans(spans, scopeIdentity)) {
    w.tag(ExportTraceServiceRequest.ResourceSpans, LENGTH);
    const resourceSpans = w.begin();
    w.tag(ResourceSpans.Resource, LENGTH);
    const res = w.begin();
    if (resource.attributes) writeAttributes(w, resource.attributes, Resource.Attributes);
    w.tag(Resource.DroppedAttributesCount, VARINT);
    w.varint(0);
    w.end(res);
    for (const group of byScope.values()) {
      w.tag(ResourceSpans.ScopeSpans, LENGTH);
      yield* writeScopeSpans(w, group[0].instrumentationScope, group);
    }
    if (resource.schemaUrl) {
      w.tag(ResourceSpans.SchemaUrl, LENGTH);
      w.string(resource.schemaUrl);
    }
    w.end(resourceSpans);
  }
}

function* writeScopeSpans(w: ProtobufWriter, scope: InstrumentationScope, spans: ReadableSpan[]): Generator<void, void, void> {
  const at = w.begin();
  w.tag(ScopeSpans.Scope, LENGTH);
  const s = w.begin();
  w.tag(Scope.Name, LENGTH);
  w.string(scope.name);
  if (scope.version) {
    w.tag(Scope.Version, LENGTH);
    w.string(scope.version);
  }
  const extra = scope as { attributes?: Attributes; droppedAttributesCount?: number };
  if (extra.attributes) writeAttributes(w, extra.attributes, Scope.Attributes);
  if (extra.droppedAttributesCount) {
    w.tag(Scope.DroppedAttributesCount, VARINT);
    w.varint(extra.droppedAttributesCount);
  }
  w.end(s);
  for (const span of spans) {
    w.tag(ScopeSpans.Spans, LENGTH);
    writeSpan(w, span);
    yield;
  }
  if (scope.schemaUrl) {
    w.tag(ScopeSpans.SchemaUrl, LENGTH);
    w.string(scope.schemaUrl);
  }
  w.end(at);
}

function writeSpan(w: ProtobufWriter, span: ReadableSpan): void {
  const at = w.begin();
  const ctx = span.spanContext();
  w.tag(Span.TraceId, LENGTH);
  w.hexBytes(ctx.traceId);
  w.tag(Span.SpanId, LENGTH);
  w.hexBytes(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(Span.TraceState, LENGTH);
    w.string(traceState);
  }
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    w.tag(Span.ParentSpanId, LENGTH);
    w.hexBytes(parent.spanId);
  }
  w.tag(Span.Name, LENGTH);
  w.string(span.name);
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) {
    w.tag(Span.Kind, VARINT);
    w.varint(kind);
  }
  writeTime(w, Span.StartTimeUnixNano, span.startTime);
  writeTime(w, Span.EndTimeUnixNano, span.endTime);
  if (span.attributes) writeAttributes(w, span.attributes, Span.Attributes);
  w.tag(Span.DroppedAttributesCount, VARINT);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    w.tag(Span.Events, LENGTH);
    writeEvent(w, event);
  }
  w.tag(Span.DroppedEventsCount, VARINT);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) {
    w.tag(Span.Links, LENGTH);
    writeLink(w, link);
  }
  w.tag(Span.DroppedLinksCount, VARINT);
  w.varint(span.droppedLinksCount);
  w.tag(Span.Status, LENGTH);
  const status = w.begin();
  if (span.status.message) {
    w.tag(Status.Message, LENGTH);
    w.string(span.status.message);
  }
  w.tag(Status.Code, VARINT);
  w.varint(span.status.code);
  w.end(status);
  w.tag(Span.Flags, FIXED32);
  w.fixed32(spanFlags(ctx.traceFlags, parent?.isRemote));
  w.end(at);
}

function writeEvent(w: ProtobufWriter, event: TimedEvent): void {
  const at = w.begin();
  writeTime(w, SpanEvent.TimeUnixNano, event.time);
  w.tag(SpanEvent.Name, LENGTH);
  w.string(event.name);
  if (event.attributes) writeAttributes(w, event.attributes, SpanEvent.Attributes);
  w.tag(SpanEvent.DroppedAttributesCount, VARINT);
  w.varint(event.droppedAttributesCount || 0);
  w.end(at);
}

function writeLink(w: ProtobufWriter, link: Link): void {
  const at = w.begin();
  const c = link.context;
  w.tag(SpanLink.TraceId, LENGTH);
  w.hexBytes(c.traceId);
  w.tag(SpanLink.SpanId, LENGTH);
  w.hexBytes(c.spanId);
  const traceState = c.traceState?.serialize();
  if (traceState) {
    w.tag(SpanLink.TraceState, LENGTH);
    w.string(traceState);
  }
  if (link.attributes) writeAttributes(w, link.attributes, SpanLink.Attributes);
  w.tag(SpanLink.DroppedAttributesCount, VARINT);
  w.varint(link.droppedAttributesCount || 0);
  w.tag(SpanLink.Flags, FIXED32);
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
  w.tag(KeyValue.Key, LENGTH);
  w.string(key);
  w.tag(KeyValue.Value, LENGTH);
  const v = w.begin();
  writeAnyValue(w, value);
  w.end(v);
  w.end(at);
}

/** otlp-transformer's `writeAnyValue`: what it cannot type is an empty AnyValue. */
function writeAnyValue(w: ProtobufWriter, value: unknown): void {
  switch (typeof value) {
    case 'string':
      w.tag(AnyValue.StringValue, LENGTH);
      w.string(value);
      return;
    case 'boolean':
      w.tag(AnyValue.BoolValue, VARINT);
      w.varint(value ? 1 : 0);
      return;
    case 'number':
      if (fitsInt64(value)) {
        w.tag(AnyValue.IntValue, VARINT);
        w.varint(value);
      } else {
        w.tag(AnyValue.DoubleValue, FIXED64);
        w.double(value);
      }
      return;
  }
  if (value instanceof Uint8Array) {
    w.tag(AnyValue.BytesValue, LENGTH);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(AnyValue.ArrayValue, LENGTH);
    const at = w.begin();
    for (const item of value) {
      w.tag(VALUES, LENGTH);
      const v = w.begin();
      writeAnyValue(w, item);
      w.end(v);
    }
    w.end(at);
  } else if (typeof value === 'object' && value !== null) {
    w.tag(AnyValue.KvlistValue, LENGTH);
    const at = w.begin();
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      w.tag(VALUES, LENGTH);
      writeKeyValue(w, key, (value as Record<string, unknown>)[key]);
    }
    w.end(at);
  }
}
