import type { InstrumentationScope } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

type Resource = ReadableSpan['resource'];

/**
 * Spans grouped as an OTLP request nests them: by resource (identity), then by instrumentation
 * scope, in first-seen order. `scopeKey` says what makes two scopes one group; the two encodings
 * of @opentelemetry/otlp-transformer differ there (JSON: name, version and schema URL; protobuf:
 * the scope object itself), and each encoder here matches its counterpart.
 */
export function groupSpans<K>(spans: readonly ReadableSpan[], scopeKey: (scope: InstrumentationScope) => K): Map<Resource, Map<K, ReadableSpan[]>> {
  const byResource = new Map<Resource, Map<K, ReadableSpan[]>>();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (!byScope) byResource.set(span.resource, (byScope = new Map()));
    const key = scopeKey(span.instrumentationScope);
    const group = byScope.get(key);
    if (group) group.push(span);
    else byScope.set(key, [span]);
  }
  return byResource;
}

/** otlp-transformer's JSON grouping key: scopes equal by name, version and schema URL are one group. */
export function scopeNameKey(scope: InstrumentationScope): string {
  return `${scope.name}@${scope.version || ''}:${scope.schemaUrl || ''}`;
}

/** otlp-transformer's protobuf grouping key: the scope object itself. */
export function scopeIdentity(scope: InstrumentationScope): InstrumentationScope {
  return scope;
}

/**
 * OTLP span flags: the W3C trace flags in the low 8 bits, HAS_IS_REMOTE always, IS_REMOTE when
 * the parent (or linked) context came from another process.
 * @see OpenTelemetry protocol, trace.proto, `SpanFlags`
 */
export function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);
}

/**
 * Whether an integral number fits OTLP's `intValue` (int64): the range is [−2^63, 2^63). Both
 * encoders write any other number as `doubleValue`, as otlp-transformer's protobuf writer does
 * (1e20 is an integer to `Number.isInteger`, but no int64).
 */
export function fitsInt64(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63;
}
