import type { Agent } from 'node:http';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracehookConfig } from '../config/environment.js';
import { getConfig } from '../config/current.js';
import { otlpEndpointError } from '../config/otlp.js';
import { otlpTransportOf } from '../compat/otel-otlp-exporter.js';
import { logDebug } from '../diag/logger.js';
import { unrefTimersOf } from '../preload/unref-timers.js';
import { createDirectOtlpHttpExporter, otlpHttpParts } from './direct-otlp-http-exporter.js';
import { wrap } from '../patch/wrap.js';
import { ExitSafeSpanExporter } from './exit-safe-span-exporter.js';

/**
 * The OTLP trace exporter for `protocol`, loaded only when chosen: for OTLP/HTTP with the direct
 * encoders, from the build's small bundle of otlp-exporter-base's HTTP path (see
 * {@link otlpHttpParts}); the stock and gRPC exporter packages cost 50–110 ms each to import.
 * Endpoint, headers, compression and timeout come from the standard `OTEL_EXPORTER_OTLP_*`
 * variables, which the exporters read themselves. Wrapped in an {@link ExitSafeSpanExporter}: spans
 * in flight or queued when the app calls `process.exit()` still reach the backend (within
 * `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`). Its sockets (HTTP) and retry timers are unref'd, so a backend
 * that refuses, hangs or answers 429 never keeps the process alive after the app's own work is
 * done; the exit path then waits for it within the same bound. Spans the backend rejects in an
 * accepted export (OTLP partial success) are reported in the export result and counted as dropped.
 * @param protocol - default: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`
 * @throws ConfigError when the endpoint variable is not one this protocol's exporter can use
 *   (`otlpEndpointError`): no exporter is made, as OpenTelemetry's would print the value and send
 *   to `localhost` instead. The preload has already reported it and runs the app untraced.
 * @see OpenTelemetry specification, "OpenTelemetry Protocol Exporter"
 */
export function createOtlpSpanExporter(protocol?: TracehookConfig['otlpProtocol']): SpanExporter {
  const config = getConfig();
  const chosen = protocol ?? config.otlpProtocol;
  const endpointError = otlpEndpointError(config.otlpEndpoint, chosen);
  if (endpointError) throw endpointError;
  const exporter = otlpExporter(chosen, config.otlpEncoder);
  // OTLPExporterBase → OTLPExportDelegate → RetryingTransport, whose retry() arms the back-off timer.
  unrefTimersOf(otlpTransportOf(exporter), 'retry', "the OTLP exporter's retrying transport");
  const target = {
    protocol: chosen === 'grpc' ? ('grpc' as const) : ('http' as const),
    url: chosen === 'grpc' ? grpcEndpoint(config) : config.otlpTracesUrl,
    headers: config.otlpHeaders,
    timeoutMs: config.shutdownTimeoutMs,
  };
  return new ExitSafeSpanExporter(exporter, target);
}

/** The gRPC endpoint: the OTLP endpoint variables without the `/v1/traces` path OTLP/HTTP adds. */
function grpcEndpoint(config: TracehookConfig): string {
  return config.otlpTracesUrl.replace(/\/v1\/traces$/, '') || 'http://localhost:4317';
}

/**
 * Exports in flight at once: what tracehook's span processor may start while the backend answers
 * (`maxConcurrentExports`). One batch per round trip did not keep up with a burst of a busy app
 * (half of 100 000 spans dropped for a full queue with a healthy local receiver), since an answer's
 * callback waits for the app's turn of the event loop. The exporter's default, 30, would let a
 * backend that is down hold 30 batches (15 360 spans) in retries (bench: memory, peak RSS, backend down, tracehook-otlp row); after a failed
 * export the processor sends one batch at a time, so a failing backend holds at most this many
 * batches once, then one.
 */
export const OTLP_CONCURRENT_EXPORTS = 8;

/**
 * The exporter for `protocol`. OTLP/HTTP requests are encoded by tracehook's direct encoders
 * unless `TRACEHOOK_OTLP_ENCODER=stock` (or that exporter cannot be assembled: then the stock one);
 * gRPC always uses its own exporter.
 */
function otlpExporter(protocol: TracehookConfig['otlpProtocol'], encoder: TracehookConfig['otlpEncoder']): SpanExporter {
  // otlp-exporter-base lets go of an export one microtask after its callback, where the processor may
  // already have started the next ones: twice the processor's number leaves room for that.
  const options = { concurrencyLimit: 2 * OTLP_CONCURRENT_EXPORTS };
  if (protocol === 'grpc') return new (require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter(options);
  const exporterPackage = protocol === 'http/json' ? '@opentelemetry/exporter-trace-otlp-http' : '@opentelemetry/exporter-trace-otlp-proto';
  const httpOptions = { ...options, httpAgentOptions: unrefAgentFactory(exporterPackage) };
  if (encoder === 'direct') {
    try {
      return createDirectOtlpHttpExporter(exporterPackage, protocol, httpOptions);
    } catch (err) {
      logDebug('otlp', `cannot assemble the direct-encoding exporter (${(err as Error).message}); using ${exporterPackage}'s own`);
    }
  }
  if (protocol === 'http/json') return new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(httpOptions);
  return new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(httpOptions);
}

type AgentFactory = (protocol: string) => Promise<Agent>;

/**
 * The exporter's own agent (keep-alive, and the `OTEL_EXPORTER_OTLP_*CERTIFICATE` / `*CLIENT_KEY`
 * TLS files, read by otlp-exporter-base's `convertLegacyHttpOptions`) with its sockets unref'd:
 * Node's Agent refs a socket while a request uses it, and a request to a backend that hangs would
 * then keep the process alive until the exporter's time-out (10 s).
 */
function unrefAgentFactory(exporterPackage: string): AgentFactory | undefined {
  let base: AgentFactory;
  try {
    base = (otlpHttpParts(exporterPackage).convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', {}) as { agentFactory: AgentFactory }).agentFactory;
  } catch (err) {
    logDebug('otlp', `cannot reach the exporter's agent factory (${(err as Error).message}); its sockets keep the process alive while a request is open`);
    return undefined;
  }
  return async (protocol) => unrefSockets(await base(protocol));
}

function unrefSockets(agent: Agent): Agent {
  type Socket = { unref?: () => void };
  const a = agent as unknown as { createConnection: (...args: unknown[]) => Socket | undefined; reuseSocket: (socket: Socket, req: unknown) => void };
  const otherwise = 'a request to a backend that hangs keeps the process alive until the time-out';
  wrap(
    a,
    'createConnection',
    { component: 'otlp', id: 'otlp.Agent#createConnection', otherwise },
    (create) =>
      function (this: unknown, ...args: unknown[]) {
        const socket = Reflect.apply(create, this, args) as Socket | undefined;
        socket?.unref?.();
        return socket;
      },
  );
  // Agent#reuseSocket refs a kept-alive socket again for its next request: keep the rest of what it
  // does (replacing it whole left request listeners on reused sockets), then unref.
  wrap(
    a,
    'reuseSocket',
    { component: 'otlp', id: 'otlp.Agent#reuseSocket', otherwise },
    (reuse) =>
      function (this: unknown, socket: Socket, req: unknown) {
        Reflect.apply(reuse, this, [socket, req]);
        socket.unref?.();
      },
  );
  return agent;
}
