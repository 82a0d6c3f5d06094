import type { Attributes } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * Heap held by a queued span apart from its name and attributes, bytes: the SDK Span object, its
 * span context, hrtime arrays, status and the empty events/links arrays. Calibrated on Node 20 against
 * the heap held by queued spans with 8 HTTP attributes (bench: memory, peak RSS rows); the estimate is set
 * above what they held, so the bound errs on the side of less memory.
 */
const SPAN_OVERHEAD_BYTES = 400;
/** Per attribute, event or link: the property slot, a boxed value, a small object. */
const ENTRY_OVERHEAD_BYTES = 48;

/**
 * A cheap estimate of the heap a queued span holds, bytes: a fixed overhead plus the lengths of its
 * name, attribute keys and values, events and links. Strings are counted at 1 byte per UTF-16 unit
 * (V8's one-byte strings); the estimate only needs to bound memory, not to match it exactly.
 */
export function estimateSpanBytes(span: ReadableSpan): number {
  let bytes = SPAN_OVERHEAD_BYTES + span.name.length + attributesBytes(span.attributes);
  for (const event of span.events) bytes += ENTRY_OVERHEAD_BYTES + event.name.length + attributesBytes(event.attributes);
  for (const link of span.links) bytes += ENTRY_OVERHEAD_BYTES + 64 + attributesBytes(link.attributes);
  if (span.status.message) bytes += span.status.message.length;
  return bytes;
}

function attributesBytes(attributes: Attributes | undefined): number {
  let bytes = 0;
  if (!attributes) return bytes;
  for (const key in attributes) bytes += ENTRY_OVERHEAD_BYTES + key.length + valueBytes(attributes[key]);
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) {
    let bytes = 16;
    for (const v of value) bytes += 8 + (typeof v === 'string' ? v.length : 0);
    return bytes;
  }
  return 8;
}
