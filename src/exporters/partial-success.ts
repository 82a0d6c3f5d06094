import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { otlpSerializerHolderOf } from '../compat/otel-otlp-exporter.js';
import { logDebug } from '../diag/logger.js';
import { stateKey } from '../state-key.js';
import { escapeControlChars } from '../diag/control-chars.js';

/** What a backend's OTLP partial success says: how many spans of one request it rejected, and why. */
export interface RejectedSpans {
  /** `partialSuccess.rejectedSpans`, > 0. */
  rejectedSpans: number;
  /** `partialSuccess.errorMessage`, as the backend sent it (may be empty; not yet made printable). */
  errorMessage: string;
}

// Symbol.for: the exporter and the span processor may come from different copies of this module.
const REJECTED = stateKey('rejectedSpans');

/**
 * The `error` of a SUCCESS export result whose backend rejected some of the spans: the export
 * succeeded (an OTLP partial success is not to be retried), but those spans never reached storage,
 * so the span processor counts them as dropped ("rejected by backend"). Processors that only look at
 * the result code (the SDK's) see a success, as with the stock exporter.
 */
export function rejectedSpansError(rejected: RejectedSpans): Error {
  return Object.assign(new Error(`the backend rejected ${rejected.rejectedSpans} spans: ${rejected.errorMessage}`), { [REJECTED]: rejected });
}

/** The rejection carried by an error made by {@link rejectedSpansError}, else undefined. */
export function rejectedSpansOf(error: unknown): RejectedSpans | undefined {
  return (error as { [REJECTED]?: RejectedSpans } | undefined)?.[REJECTED];
}

/**
 * The partial success in an OTLP `ExportTraceServiceResponse`, as otlp-transformer's JSON or
 * protobuf deserializer returns it (`rejectedSpans`: a number, a decimal string in proto3 JSON, or
 * a Long from protobufjs), or parsed from OTLP/JSON text; undefined when nothing was rejected.
 * @see OpenTelemetry Protocol specification, "Partial Success"
 */
export function partialSuccessOf(response: unknown): RejectedSpans | undefined {
  let r = response;
  if (typeof r === 'string' || r instanceof Uint8Array) {
    try {
      r = JSON.parse(typeof r === 'string' ? r : Buffer.from(r).toString('utf8'));
    } catch {
      return undefined;
    }
  }
  const partial = (r as { partialSuccess?: { rejectedSpans?: unknown; errorMessage?: unknown } } | null | undefined)?.partialSuccess;
  const raw = partial?.rejectedSpans as { toNumber?: () => number } | number | string | undefined;
  const rejectedSpans = typeof raw === 'object' && raw !== null && typeof raw.toNumber === 'function' ? raw.toNumber() : Number(raw ?? 0);
  if (!Number.isFinite(rejectedSpans) || rejectedSpans <= 0) return undefined;
  return { rejectedSpans, errorMessage: typeof partial?.errorMessage === 'string' ? partial.errorMessage : '' };
}

/**
 * Has `exporter` (an OTLPExporterBase of @opentelemetry/otlp-exporter-base: the direct or stock
 * OTLP/HTTP exporter, or the OTLP/gRPC one) keep the OTLP partial success of each answer, which it
 * otherwise only logs at WARN through `diag`, for the caller to take in the export's result
 * callback: its export delegate deserializes a successful answer and calls back synchronously
 * right after, so the answer read last belongs to the callback that runs next. The delegate's
 * serializer is replaced on this instance only (otlp-transformer's serializers are shared by every
 * exporter of the process). When the internals are not where 0.2xx keeps them
 * (`_delegate._serializer`), says so at DEBUG level and the taker always returns undefined.
 * @returns a function giving the rejection of the answer read last (once), or undefined
 */
export function keepPartialSuccess(exporter: SpanExporter): () => RejectedSpans | undefined {
  const delegate = otlpSerializerHolderOf<ReadableSpan>(exporter);
  if (delegate === undefined) {
    logDebug('otlp', 'the OTLP exporter keeps no serializer where otlp-exporter-base 0.2xx does; spans a backend rejects (partial success) count as exported');
    return () => undefined;
  }
  const serializer = delegate._serializer;
  let last: RejectedSpans | undefined;
  delegate._serializer = {
    serializeRequest: (spans) => serializer.serializeRequest(spans),
    deserializeResponse: (data) => {
      last = undefined;
      const response = serializer.deserializeResponse(data);
      last = partialSuccessOf(response);
      return response;
    },
  };
  return () => {
    const rejected = last;
    last = undefined;
    return rejected;
  };
}

/** `result` with `rejected` attached ({@link rejectedSpansError}) when it is a success and some spans were rejected. */
export function withRejection(result: ExportResult, rejected: RejectedSpans | undefined): ExportResult {
  return rejected && result.code === ExportResultCode.SUCCESS ? { code: ExportResultCode.SUCCESS, error: rejectedSpansError(rejected) } : result;
}

/**
 * `text` made safe for one diagnostic line: control characters escaped by the one escaper
 * ({@link escapeControlChars}), cut to `max` characters with `…` (a backend's `errorMessage` is unbounded).
 */
export function printable(text: string, max = 200): string {
  return escapeControlChars(text.length > max ? `${text.slice(0, max)}…` : text);
}
