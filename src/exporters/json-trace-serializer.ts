import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { getConfig } from '../config/current.js';
import type { ByteLine } from '../encoding/byte-line.js';
import { encodeOtlpJson, encodeOtlpJsonInto } from '../encoding/otlp-json.js';
import { packageRoot } from '../package-root.js';

type Transformer = typeof import('@opentelemetry/otlp-transformer');

/** What dist/otlp-json.bundle.js exports: otlp-transformer's JSON serializer and the two parts it is made of. */
interface SerializerBundle {
  JsonTraceSerializer: Transformer['JsonTraceSerializer'];
  createExportTraceServiceRequest?: (spans: ReadableSpan[], encoder: unknown) => unknown;
  JSON_ENCODER?: unknown;
}

let toJson: ((spans: ReadableSpan[]) => string) | undefined;

/**
 * Encodes spans as one OTLP/JSON `ExportTraceServiceRequest` (hex trace and span ids): straight
 * from the spans ({@link encodeOtlpJson}), or with `TRACEHOOK_OTLP_ENCODER=stock` with
 * @opentelemetry/otlp-transformer, the same text either way except where otlp-transformer's is not
 * valid OTLP/JSON (lone surrogates, integers beyond 2^53; see encodeOtlpJson). The stock serializer is loaded at the
 * first use rather than at startup: from the build's small bundle of it (dist/otlp-json.bundle.js)
 * when present, else from the package (much slower: it brings protobuf, metrics and logs along).
 * @returns the request as a JSON string (no trailing newline)
 */
export function spansToOtlpJson(spans: ReadableSpan[]): string {
  return (toJson ??= getConfig().otlpEncoder === 'stock' ? stockSpansToOtlpJson : encodeOtlpJson)(spans);
}

/** {@link spansToOtlpJson}'s request appended to `line` as UTF-8 (the direct encoder writes it in place). */
export function spansToOtlpJsonInto(spans: ReadableSpan[], line: ByteLine): void {
  if (getConfig().otlpEncoder === 'stock') line.text(stockSpansToOtlpJson(spans));
  else encodeOtlpJsonInto(spans, line);
}

/** otlp-transformer's JSON serializer, as `TRACEHOOK_OTLP_ENCODER=stock` selects. */
export function stockSpansToOtlpJson(spans: ReadableSpan[]): string {
  return (stock ??= loadStock())(spans);
}

let stock: ((spans: ReadableSpan[]) => string) | undefined;

function loadStock(): (spans: ReadableSpan[]) => string {
  let bundle: SerializerBundle;
  try {
    bundle = require(join(packageRoot(), 'dist', 'otlp-json.bundle.js')) as SerializerBundle;
  } catch {
    bundle = require('@opentelemetry/otlp-transformer') as SerializerBundle;
  }
  const { createExportTraceServiceRequest: build, JSON_ENCODER: encoder, JsonTraceSerializer } = bundle;
  // The serializer's own steps, minus its TextEncoder round trip: the caller writes the string.
  if (build && encoder) return (spans) => JSON.stringify(build(spans, encoder));
  const decoder = new TextDecoder();
  return (spans) => decoder.decode(JsonTraceSerializer.serializeRequest(spans));
}
