import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracehookConfig } from '../config/environment.js';
import { readConfig } from '../config/environment.js';
import { ExitSafeSpanExporter } from './exit-safe-span-exporter.js';

/**
 * The OTLP trace exporter for `protocol`, required only when chosen (each costs 50–110 ms to
 * import). Endpoint, headers, compression and timeout come from the standard
 * `OTEL_EXPORTER_OTLP_*` variables, which the exporters read themselves. The HTTP ones are wrapped
 * in an {@link ExitSafeSpanExporter}, so spans queued when the app calls `process.exit()` still
 * reach the backend (within `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`).
 * @param protocol - default: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`
 * @see OpenTelemetry specification, "OpenTelemetry Protocol Exporter"
 */
export function createOtlpSpanExporter(protocol?: TracehookConfig['otlpProtocol']): SpanExporter {
  const config = readConfig();
  const exporter = otlpExporter(protocol ?? config.otlpProtocol);
  if ((protocol ?? config.otlpProtocol) === 'grpc') return exporter;
  return new ExitSafeSpanExporter(exporter, { url: config.otlpTracesUrl, headers: config.otlpHeaders, timeoutMs: config.shutdownTimeoutMs });
}

function otlpExporter(protocol: TracehookConfig['otlpProtocol']): SpanExporter {
  switch (protocol) {
    case 'grpc':
      return new (require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
    case 'http/json':
      return new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
    default:
      return new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  }
}
