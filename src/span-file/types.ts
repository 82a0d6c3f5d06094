/**
 * Shapes of the span file format (input) and of the decoded spans `tracehook view`, the demo and
 * the tests work with (output).
 *
 * @see https://opentelemetry.io/docs/specs/otel/protocol/file-exporter/ (the OTLP File Exporter format)
 * @see https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding (OTLP/JSON)
 */

/** Span kind as a name; OTLP numbers 1 to 5 map to these in order (0, unspecified, reads as INTERNAL). */
export type SpanKindName = 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';

/** Status code as a name; OTLP numbers 0, 1, 2 map to these in order. */
export type StatusCodeName = 'UNSET' | 'OK' | 'ERROR';

/**
 * A plain attribute value: OTLP `AnyValue` unwrapped. `intValue` becomes a `number` when it is a
 * safe integer and a `bigint` otherwise; `bytesValue` (base64 in OTLP/JSON) becomes a `Uint8Array`;
 * `arrayValue` an array; `kvlistValue` a plain object; an empty `AnyValue` `undefined`.
 */
export type AttributeValue = string | number | bigint | boolean | Uint8Array | undefined | AttributeValue[] | { [key: string]: AttributeValue };

/** Attributes as a plain object, keys as in the file. */
export type Attributes = Record<string, AttributeValue>;

/** One span event. */
export interface DecodedEvent {
  name: string;
  /** Nanoseconds since the Unix epoch. */
  timeUnixNano: bigint;
  attributes: Attributes;
}

/** One span link. */
export interface DecodedLink {
  /** 32 lowercase hex chars. */
  traceId: string;
  /** 16 lowercase hex chars. */
  spanId: string;
  /** W3C `tracestate` of the linked context, when it had one. */
  traceState?: string;
  attributes: Attributes;
}

/**
 * One span read back from a span file, flattened: the resource and instrumentation scope it was
 * exported under are copied onto it, and every OTLP wrapper is unwrapped.
 */
export interface DecodedSpan {
  /** 32 lowercase hex chars. */
  traceId: string;
  /** 16 lowercase hex chars. */
  spanId: string;
  /** 16 lowercase hex chars; absent for a root span (OTLP writes it absent or as ""). */
  parentSpanId?: string;
  /** W3C `tracestate` of the span's context; absent when empty. */
  traceState?: string;
  name: string;
  kind: SpanKindName;
  /** Nanoseconds since the Unix epoch. */
  startTimeUnixNano: bigint;
  /** Nanoseconds since the Unix epoch. */
  endTimeUnixNano: bigint;
  /** `endTimeUnixNano - startTimeUnixNano` in milliseconds (fractional). */
  durationMs: number;
  attributes: Attributes;
  events: DecodedEvent[];
  links: DecodedLink[];
  /** `message` is present only when the file has a non-empty one. */
  status: { code: StatusCodeName; message?: string };
  /** Resource attributes, e.g. `service.name`, `process.pid`. */
  resource: Attributes;
  /** Instrumentation scope, e.g. `{ name: '@opentelemetry/instrumentation-http', version: '0.223.0' }`. */
  scope: { name: string; version?: string };
  /** The file the span was read from; `''` when decoded from a string that came from nowhere. */
  file: string;
}

/** A line of a span file that could not be decoded, and why. */
export interface SkippedLine {
  file: string;
  /** 1-based line number. */
  line: number;
  /** Why, without the line's text: e.g. `not JSON: it ends early`, `not JSON (at character 20)`, or a decoder message. */
  reason: string;
  /** True when it is the last line and has no newline: the usual sign of a process killed mid-write. */
  truncated: boolean;
}

/** The result of reading one or more span files. */
export interface SpanReadResult {
  /** Every span of every readable line, in file order (files sorted by path). */
  spans: DecodedSpan[];
  /** The span files read, sorted. */
  files: string[];
  /** Lines skipped because they were not valid OTLP/JSON; empty lines are ignored, not counted. */
  skipped: SkippedLine[];
}
