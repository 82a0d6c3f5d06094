/**
 * OpenTelemetry JS internal: the transport of an OTLP exporter (@opentelemetry/exporter-trace-otlp-*,
 * otlp-exporter-base).
 * - Relies on: `OTLPExporterBase#_delegate` (the export delegate) and its `_transport` (the retrying transport, whose
 *   `retry()` sets the back-off timer) and `_serializer` (`serializeRequest(spans)`, `deserializeResponse(bytes)`,
 *   read by the delegate at each export, so replacing it on one delegate affects that exporter only).
 * - Since: otlp-exporter-base's export-delegate design (the 0.5x releases); checked against the version in dependencies.
 * - When it is gone ({@link otlpTransportOf} returns undefined): the retry timer stays ref'd, so at exit a retrying
 *   export may hold the process up to the exporter's time-out (still bounded by `TRACEHOOK_SHUTDOWN_TIMEOUT_MS` at
 *   exit); said at DEBUG level by the caller. When `_serializer` is gone ({@link otlpSerializerHolderOf} returns
 *   undefined): spans a backend rejects in an accepted export (OTLP partial success) count as exported; said at DEBUG.
 * Used by src/exporters/otlp-span-exporter.ts and src/exporters/partial-success.ts; test/unit/compat.test.mjs.
 */

/** `exporter._delegate._transport`, or undefined when not an object. Never throws. */
export function otlpTransportOf(exporter: unknown): object | undefined {
  const transport = (exporter as { _delegate?: { _transport?: unknown } } | null | undefined)?._delegate?._transport;
  return typeof transport === 'object' && transport !== null ? transport : undefined;
}

/** The serializer of an OTLP export delegate (otlp-transformer's, shared by every exporter of the process). */
export interface OtlpSerializer<Span = unknown> {
  serializeRequest(spans: Span[]): Uint8Array | undefined;
  deserializeResponse(data: Uint8Array): unknown;
}

/** An export delegate whose `_serializer` may be replaced (on that delegate only). */
export interface OtlpSerializerHolder<Span = unknown> {
  _serializer: OtlpSerializer<Span>;
}

/** `exporter._delegate` when its `_serializer` has `serializeRequest` and `deserializeResponse`, else undefined. Never throws. */
export function otlpSerializerHolderOf<Span = unknown>(exporter: unknown): OtlpSerializerHolder<Span> | undefined {
  const delegate = (exporter as { _delegate?: { _serializer?: Partial<OtlpSerializer> } } | null | undefined)?._delegate;
  const serializer = delegate?._serializer;
  return typeof serializer?.serializeRequest === 'function' && typeof serializer.deserializeResponse === 'function' ? (delegate as OtlpSerializerHolder<Span>) : undefined;
}
