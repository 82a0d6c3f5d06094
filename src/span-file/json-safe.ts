/**
 * Decoded values made JSON-safe for output: bigints (large ints) become decimal strings, byte
 * values base64 strings, `undefined` (an empty AnyValue) `null`, so the result survives
 * `JSON.stringify` and parses back without loss.
 */
export function toJsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSafe(v)]));
  }
  return value;
}
