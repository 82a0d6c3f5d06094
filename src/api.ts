/**
 * `@tracehook/register/api`: the public API. Every export works whether or not the preload is
 * active; without it the calls are harmless no-ops or pass-throughs.
 */

// Startup hooks and providers: what a tracing startup hook (TRACEHOOK_STARTUP_HOOK) builds with.
export { registerTracerProvider } from './provider/tracer-provider.js';
export type { TracerProviderOptions } from './provider/tracer-provider.js';
export { setupDefaultTracing } from './startup-hook/default-hook.js';
export { FileSpanExporter } from './exporters/file-span-exporter.js';
export { createOtlpSpanExporter } from './exporters/otlp-span-exporter.js';
export { ConfigError } from './config/config-error.js';
export type { FileSpanExporterOptions } from './exporters/file-span-exporter.js';
export { BoundedBatchSpanProcessor } from './processors/bounded-batch-span-processor.js';
export type { BoundedBatchOptions } from './processors/bounded-batch-span-processor.js';

// Loss accounting: what happened to every ended span of this thread.
export { getTracingStats } from './diag/tracing-stats.js';
export type { TracingStats, DroppedSpans } from './diag/tracing-stats.js';

// Trace context: the trace stack, spans around functions, request ids.
export { getTraceContext } from './context/trace-context.js';
export { currentSpan, setSpanAttributes, setSpanStatus, recordException } from './context/span-helpers.js';
export type { StatusCodeInput } from './context/span-helpers.js';
export { traced } from './context/traced.js';
export type { AnyFunction, TracedOptions, TracedMethodDecorator } from './context/traced.js';
export { withRequestId, getRequestId, REQUEST_ID_KEY, REQUEST_ID_ATTRIBUTE } from './context/request-id.js';
export { TRACER_NAME, TRACER_VERSION } from './context/tracer.js';

// Propagation: inject/extract over the configured propagators, for any carrier.
export { injectContext, extractContext } from './propagation/inject-extract.js';
export { envCarrier, envVariableName } from './propagation/env-carrier.js';
export type { EnvCarrier, EnvObject } from './propagation/env-carrier.js';
export type { MethodCarrier } from './propagation/carrier-adapter.js';

// Batches: one span for many callers, linked both ways.
export { batch } from './batch/batch.js';
export type { BatchHandler, BatchOptions } from './batch/batch.js';
export { startBatchSpan } from './batch/start-batch-span.js';
export type { BatchSpanOptions, ContextOrCarrier } from './batch/start-batch-span.js';
export { BATCH_INDEX_ATTRIBUTE, BATCH_SIZE_ATTRIBUTE, BATCH_WAIT_MS_ATTRIBUTE } from './batch/batch-attributes.js';

// Span processors.
export { RuntimeContextSpanProcessor, CLUSTER_WORKER_ID_ATTRIBUTE } from './processors/runtime-context-span-processor.js';
