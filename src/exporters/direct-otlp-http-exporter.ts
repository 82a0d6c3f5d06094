import { createRequire } from 'node:module';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeOtlpJson } from '../encoding/otlp-json.js';
import { encodeOtlpProtobuf } from '../encoding/otlp-protobuf.js';

/** The exporter options tracehook passes (otlp-exporter-base's legacy HTTP configuration). */
export interface OtlpHttpOptions {
  concurrencyLimit: number;
  httpAgentOptions?: unknown;
}

const FORMATS = {
  'http/json': { contentType: 'application/json', stock: 'JsonTraceSerializer', encode: (spans: ReadableSpan[]) => Buffer.from(encodeOtlpJson(spans)) },
  'http/protobuf': { contentType: 'application/x-protobuf', stock: 'ProtobufTraceSerializer', encode: encodeOtlpProtobuf },
} as const;

/**
 * An OTLP/HTTP trace exporter built as the stock `OTLPTraceExporter` of `exporterPackage` builds
 * itself (@opentelemetry/otlp-exporter-base's HTTP export delegate: endpoint, headers, compression,
 * TLS, time-out and retries from the `OTEL_EXPORTER_OTLP_*` variables, the same component type for
 * its self-observability metrics), with the request bytes from the direct encoders
 * ({@link encodeOtlpJson}, {@link encodeOtlpProtobuf}) in place of otlp-transformer's serializers:
 * the same bytes on the wire, without building request objects. The parts are required through
 * `exporterPackage`, so they are the copies that exporter would use.
 * @throws when the exporter package or its otlp-exporter-base cannot be loaded
 * @see OpenTelemetry specification, "OpenTelemetry Protocol Exporter"
 */
export function createDirectOtlpHttpExporter(exporterPackage: string, protocol: keyof typeof FORMATS, options: OtlpHttpOptions): SpanExporter {
  const fromExporter = createRequire(require.resolve(exporterPackage));
  const { OTLPExporterBase } = fromExporter('@opentelemetry/otlp-exporter-base') as { OTLPExporterBase: new (delegate: unknown) => SpanExporter };
  const http = fromExporter('@opentelemetry/otlp-exporter-base/node-http') as {
    convertLegacyHttpOptions: (config: unknown, signal: string, path: string, headers: Record<string, string>) => unknown;
    createOtlpHttpExportDelegate: (...args: unknown[]) => unknown;
  };
  const transformer = fromExporter('@opentelemetry/otlp-transformer') as Record<string, { deserializeResponse?: unknown }>;
  const format = FORMATS[protocol];
  const serializer = { serializeRequest: format.encode, deserializeResponse: transformer[format.stock].deserializeResponse };
  const settings = http.convertLegacyHttpOptions(options, 'TRACES', 'v1/traces', { 'Content-Type': format.contentType });
  return new OTLPExporterBase(http.createOtlpHttpExportDelegate(settings, serializer, 'otlp_http_span_exporter', transformer.TraceExporterMetricsHelper, undefined));
}
