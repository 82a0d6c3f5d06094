/**
 * JSON form of traces, for `tracehook view --json` and for tools that read its output: bigints
 * (timestamps, large ints) become decimal strings and byte values base64 strings, so the result
 * survives `JSON.stringify` and parses back without loss.
 */
import type { Trace } from './tree';

/** A trace as plain JSON data; spans are parent-first, each with its `depth`. */
export function traceToJson(trace: Trace): unknown {
  return toJsonSafe({
    traceId: trace.traceId,
    startTimeUnixNano: trace.startTimeUnixNano,
    endTimeUnixNano: trace.endTimeUnixNano,
    durationMs: trace.durationMs,
    services: trace.services,
    processes: trace.processes,
    spans: trace.spans.map((node) => ({
      depth: node.depth,
      ...(node.missingParentSpanId ? { missingParentSpanId: node.missingParentSpanId } : {}),
      ...node.span,
    })),
  });
}

function toJsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSafe(v)]));
  }
  return value;
}
