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

/**
 * Exports in flight at once. The exporter's default, 30, lets a backend that is down hold 30 batches
 * (≈ 15 000 spans) in retries: ≈ 100 MiB here. The BatchSpanProcessor sends one batch at a time, so
 * 2 only matters when the backend is failing, and then the batch is dropped and counted instead.
 */
const CONCURRENCY_LIMIT = 2;

function otlpExporter(protocol: TracehookConfig['otlpProtocol']): SpanExporter {
  const options = { concurrencyLimit: CONCURRENCY_LIMIT };
  switch (protocol) {
    case 'grpc':
      return new (require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter(options);
    case 'http/json':
      return new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
    default:
      return new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
  }
}
