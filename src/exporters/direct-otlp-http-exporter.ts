import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeOtlpJsonBytes, encodeOtlpJsonStepwise } from '../encoding/otlp-json.js';
import { encodeOtlpProtobuf, encodeOtlpProtobufStepwise } from '../encoding/otlp-protobuf.js';
import { encodedRequestOf, setStepwiseEncoder } from './encoded-request.js';
import { publishSharedModules, shareBundledModules } from '../instrumentations/shared-modules.js';
import { packageRoot } from '../package-root.js';

/** The exporter options tracehook passes (otlp-exporter-base's legacy HTTP configuration). */
export interface OtlpHttpOptions {
  concurrencyLimit: number;
  httpAgentOptions?: unknown;
}

/** The parts of @opentelemetry/otlp-exporter-base and otlp-transformer the direct exporter is assembled from. */
export interface OtlpHttpParts {
  OTLPExporterBase: new (delegate: unknown) => SpanExporter;
  convertLegacyHttpOptions: (config: unknown, signal: string, path: string, headers: Record<string, string>) => unknown;
  createOtlpHttpExportDelegate: (...args: unknown[]) => unknown;
  deserializeJson: (data: Uint8Array) => unknown;
  deserializeProtobuf: (data: Uint8Array) => unknown;
  TraceExporterMetricsHelper: unknown;
}

const FORMATS = {
  'http/json': { contentType: 'application/json', encode: encodeOtlpJsonBytes, stepwise: encodeOtlpJsonStepwise, deserialize: 'deserializeJson' },
  'http/protobuf': { contentType: 'application/x-protobuf', encode: encodeOtlpProtobuf, stepwise: encodeOtlpProtobufStepwise, deserialize: 'deserializeProtobuf' },
} as const;

/**
 * An OTLP/HTTP trace exporter built as the stock `OTLPTraceExporter` of `exporterPackage` builds
 * itself (@opentelemetry/otlp-exporter-base's HTTP export delegate: endpoint, headers, compression,
 * TLS, time-out and retries from the `OTEL_EXPORTER_OTLP_*` variables, the same component type for
 * its self-observability metrics), with the request bytes from the direct encoders
 * ({@link encodeOtlpJsonBytes}, {@link encodeOtlpProtobuf}) in place of otlp-transformer's serializers:
 * the same bytes on the wire, without building request objects. A batch that carries its request
 * already (`withEncodedRequest`: tracehook's span processor encodes it a few spans per turn of
 * the event loop, `setStepwiseEncoder`) is sent as it is. Responses (partial success) are
 * parsed by otlp-transformer's own deserializers.
 * @throws when neither the build's bundle of those parts nor `exporterPackage` can be loaded
 * @see OpenTelemetry specification, "OpenTelemetry Protocol Exporter"
 */
export function createDirectOtlpHttpExporter(exporterPackage: string, protocol: keyof typeof FORMATS, options: OtlpHttpOptions): SpanExporter {
  const parts = otlpHttpParts(exporterPackage);
  const format = FORMATS[protocol];
  const serializeRequest = (spans: ReadableSpan[]) => encodedRequestOf(spans) ?? format.encode(spans);
  const serializer = { serializeRequest, deserializeResponse: parts[format.deserialize] };
  const settings = parts.convertLegacyHttpOptions(options, 'TRACES', 'v1/traces', { 'Content-Type': format.contentType });
  const exporter = new parts.OTLPExporterBase(parts.createOtlpHttpExportDelegate(settings, serializer, 'otlp_http_span_exporter', parts.TraceExporterMetricsHelper, undefined));
  setStepwiseEncoder(exporter, format.stepwise);
  return exporter;
}

let parts: OtlpHttpParts | undefined;

/**
 * The parts, from the build's bundle of them (dist/otlp-http.bundle.js, sharing the preload's
 * @opentelemetry/api and core): a start with OTLP/HTTP costs little more than one with span files
 * (bench: startup, spawn → first HTTP 200, tracehook-otlp against tracehook-files), where the packages cost far more, as otlp-transformer's index brings metrics, logs and
 * sdk-metrics along. Without the bundle (running from the sources),
 * required through `exporterPackage`, so they are the copies that exporter would use.
 * @throws when neither can be loaded
 */
export function otlpHttpParts(exporterPackage: string): OtlpHttpParts {
  if (parts) return parts;
  try {
    publishSharedModules();
    const b = require(join(packageRoot(), 'dist', 'otlp-http.bundle.js')) as Omit<OtlpHttpParts, 'deserializeJson' | 'deserializeProtobuf'> & {
      JsonTraceSerializer: { deserializeResponse: OtlpHttpParts['deserializeJson'] };
      deserializeExportTraceServiceResponse: OtlpHttpParts['deserializeProtobuf'];
    };
    return (parts = { ...b, deserializeJson: b.JsonTraceSerializer.deserializeResponse, deserializeProtobuf: b.deserializeExportTraceServiceResponse });
  } catch {
    // Not built: the packages, below.
  }
  shareBundledModules();
  const fromExporter = createRequire(require.resolve(exporterPackage));
  const http = fromExporter('@opentelemetry/otlp-exporter-base/node-http') as Pick<OtlpHttpParts, 'convertLegacyHttpOptions' | 'createOtlpHttpExportDelegate'>;
  const transformer = fromExporter('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
  return (parts = {
    OTLPExporterBase: (fromExporter('@opentelemetry/otlp-exporter-base') as Pick<OtlpHttpParts, 'OTLPExporterBase'>).OTLPExporterBase,
    convertLegacyHttpOptions: http.convertLegacyHttpOptions,
    createOtlpHttpExportDelegate: http.createOtlpHttpExportDelegate,
    deserializeJson: transformer.JsonTraceSerializer.deserializeResponse,
    deserializeProtobuf: transformer.ProtobufTraceSerializer.deserializeResponse,
    TraceExporterMetricsHelper: transformer.TraceExporterMetricsHelper,
  });
}
