import type { Attributes, AttributeValue } from './types';

/**
 * How many arrays and maps deep a value is unwrapped. Deeper ones read as {@link TOO_DEEP}: every
 * printer of values (text, page, export) recurses, and a hostile line can nest thousands deep.
 */
export const MAX_VALUE_DEPTH = 32;

/** What an array or map nested deeper than {@link MAX_VALUE_DEPTH} reads as. */
export const TOO_DEEP = `[nested deeper than ${MAX_VALUE_DEPTH} levels]`;

/**
 * Unwraps one OTLP/JSON `AnyValue` into a plain value (see {@link AttributeValue}).
 * Unknown or empty wrappers give `undefined` rather than an error: a value kind added by a newer
 * OTLP version should not make a whole line unreadable.
 * @param depth - arrays and maps around this value (0 for an attribute's own value)
 */
export function toPlainValue(anyValue: unknown, depth = 0): AttributeValue {
  if (anyValue === null || typeof anyValue !== 'object') return undefined;
  const v = anyValue as Record<string, unknown>;
  // Not String() on an object: an array nested thousands deep would recurse in its join().
  if ('stringValue' in v) return typeof v.stringValue === 'object' && v.stringValue !== null ? undefined : String(v.stringValue);
  if ('boolValue' in v) return v.boolValue === true || v.boolValue === 'true';
  if ('intValue' in v) return toInteger(v.intValue);
  if ('doubleValue' in v) return toDouble(v.doubleValue);
  if ('arrayValue' in v) {
    if (depth >= MAX_VALUE_DEPTH) return TOO_DEEP;
    const values = (v.arrayValue as { values?: unknown[] } | null)?.values;
    return Array.isArray(values) ? values.map((item) => toPlainValue(item, depth + 1)) : [];
  }
  if ('kvlistValue' in v) {
    if (depth >= MAX_VALUE_DEPTH) return TOO_DEEP;
    return toAttributes((v.kvlistValue as { values?: unknown } | null)?.values, depth + 1);
  }
  if ('bytesValue' in v && typeof v.bytesValue === 'string') {
    return new Uint8Array(Buffer.from(v.bytesValue, 'base64'));
  }
  return undefined;
}

/**
 * Turns an OTLP/JSON `KeyValue[]` into a plain object. A missing list gives `{}`; entries without
 * a string key are dropped. When a key repeats, the last value wins, as in the SDK's own attribute maps.
 * @param depth - maps around this list (0 for a span's attributes), see {@link MAX_VALUE_DEPTH}
 */
export function toAttributes(keyValues: unknown, depth = 0): Attributes {
  const out: Attributes = {};
  if (!Array.isArray(keyValues)) return out;
  for (const kv of keyValues) {
    if (kv && typeof kv === 'object' && typeof (kv as { key?: unknown }).key === 'string') {
      out[(kv as { key: string }).key] = toPlainValue((kv as { value?: unknown }).value, depth);
    }
  }
  return out;
}

// OTLP/JSON writes int64 as a string (proto3 JSON mapping) but many producers, otlp-transformer
// included, write a plain number; accept both and stay exact beyond 2^53.
function toInteger(raw: unknown): number | bigint | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && /^-?\d+$/.test(raw)) {
    const big = BigInt(raw);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  return undefined;
}

// proto3 JSON writes non-finite doubles as the strings "NaN", "Infinity", "-Infinity".
function toDouble(raw: unknown): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string') {
    const n = Number(raw);
    return Number.isNaN(n) && raw !== 'NaN' ? undefined : n;
  }
  return undefined;
}
