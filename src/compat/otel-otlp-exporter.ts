/**
 * OpenTelemetry JS internal: the transport of an OTLP exporter (@opentelemetry/exporter-trace-otlp-*,
 * otlp-exporter-base).
 * - Relies on: `OTLPExporterBase#_delegate` (the export delegate) and its `_transport` (the retrying transport, whose
 *   `retry()` sets the back-off timer).
 * - Since: otlp-exporter-base's export-delegate design (the 0.5x releases); checked against the version in dependencies.
 * - When it is gone ({@link otlpTransportOf} returns undefined): the retry timer stays ref'd, so at exit a retrying
 *   export may hold the process up to the exporter's time-out (still bounded by `TRACEHOOK_SHUTDOWN_TIMEOUT_MS` at
 *   exit); said at DEBUG level by the caller.
 * Used by src/exporters/otlp-span-exporter.ts; test/unit/compat.test.mjs.
 */

/** `exporter._delegate._transport`, or undefined when not an object. Never throws. */
export function otlpTransportOf(exporter: unknown): object | undefined {
  const transport = (exporter as { _delegate?: { _transport?: unknown } } | null | undefined)?._delegate?._transport;
  return typeof transport === 'object' && transport !== null ? transport : undefined;
}
