/**
 * Decoded spans as the SDK's `ReadableSpan` shape, for @opentelemetry/otlp-transformer's
 * serializers (`tracehook export --protocol http/protobuf`). Spans that shared a resource and
 * scope in the file share them here too, so the serializer groups them the same way.
 *
 * What cannot be carried back: trace flags (files do not keep them; spans in files were sampled,
 * so 1), dropped counts, whether the parent was remote, and integers beyond 2^53 (the serializer
 * takes numbers).
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Attributes, AttributeValue, DecodedSpan, SpanKindName, StatusCodeName } from './types';

const KIND: Record<SpanKindName, number> = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 };
const STATUS: Record<StatusCodeName, number> = { UNSET: 0, OK: 1, ERROR: 2 };

/** @returns one ReadableSpan-shaped object per span, in the same order */
export function toReadableSpans(spans: readonly DecodedSpan[]): ReadableSpan[] {
  const resources = new Map<Attributes, { attributes: Record<string, unknown> }>();
  const scopes = new Map<string, { name: string; version?: string }>();
  return spans.map((s) => {
    let resource = resources.get(s.resource);
    if (!resource) resources.set(s.resource, (resource = { attributes: plain(s.resource) }));
    const scopeKey = `${s.scope.name}@${s.scope.version ?? ''}`;
    let scope = scopes.get(scopeKey);
    if (!scope) scopes.set(scopeKey, (scope = s.scope));
    const context = { traceId: s.traceId, spanId: s.spanId, traceFlags: 1, ...(s.traceState ? { traceState: traceState(s.traceState) } : {}) };
    const span = {
      name: s.name,
      kind: KIND[s.kind],
      spanContext: () => context,
      parentSpanContext: s.parentSpanId ? { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: 1 } : undefined,
      startTime: hrTime(s.startTimeUnixNano),
      endTime: hrTime(s.endTimeUnixNano),
      duration: hrTime(s.endTimeUnixNano - s.startTimeUnixNano),
      status: { code: STATUS[s.status.code], ...(s.status.message ? { message: s.status.message } : {}) },
      attributes: plain(s.attributes),
      links: s.links.map((l) => ({
        context: { traceId: l.traceId, spanId: l.spanId, traceFlags: 1, ...(l.traceState ? { traceState: traceState(l.traceState) } : {}) },
        attributes: plain(l.attributes),
      })),
      events: s.events.map((e) => ({ name: e.name, time: hrTime(e.timeUnixNano), attributes: plain(e.attributes) })),
      ended: true,
      resource,
      instrumentationScope: scope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
    return span as unknown as ReadableSpan;
  });
}

// [seconds, nanoseconds], exact for any int64 nanosecond time.
function hrTime(nanos: bigint): [number, number] {
  return [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)];
}

function traceState(text: string): { serialize(): string } {
  return { serialize: () => text };
}

function plain(attributes: Attributes): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, plainValue(v)]));
}

function plainValue(value: AttributeValue): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plainValue);
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) return plain(value);
  return value;
}
