import { readBoolean } from './boolean.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';
import type { InstrumentationSelection } from './instrumentation-selection.js';
import { readInstrumentationSelection } from './instrumentation-selection.js';
import type { LogLevel } from './log-level.js';
import { readLogLevel } from './log-level.js';
import type { OtlpConfig } from './otlp.js';
import { readOtlpConfig } from './otlp.js';
import { readPropagators } from './propagators.js';
import type { RequestDataConfig } from './request-data.js';
import { readRequestDataConfig } from './request-data.js';
import type { ServiceConfig } from './resource-attributes.js';
import { readServiceConfig } from './resource-attributes.js';
import type { SamplingConfig } from './sampling.js';
import { readSamplingConfig } from './sampling.js';
import type { SpanQueueConfig } from './span-queue.js';
import { readSpanQueueConfig } from './span-queue.js';
import type { SpansDirConfig } from './spans-dir.js';
import { readSpansDirConfig, readSpansMaxBytes } from './spans-dir.js';
import type { TimeBounds } from './time-bounds.js';
import { readTimeBounds } from './time-bounds.js';
import type { TracesExporterName } from './traces-exporter.js';
import { readTracesExporters } from './traces-exporter.js';
import type { OtlpEncoder } from './encoder.js';
import { readOtlpEncoder } from './encoder.js';
import type { TracerKind } from './tracer.js';
import { readTracerKind } from './tracer.js';

export { isDisabled } from './disabled.js';
export { wantsEsmLoader } from './instrumentation-selection.js';

/**
 * Everything tracehook reads from the environment, parsed once per thread ({@link getConfig} in
 * `current.ts`) and passed down. src/config/ is the only code that reads configuration variables;
 * the OpenTelemetry OTLP exporters still read their own `OTEL_EXPORTER_OTLP_*` variables, as the
 * specification has them do (see {@link OtlpConfig}).
 *
 * Parsing never throws: each bad value becomes a {@link ConfigError} in `errors` and the field
 * falls back to its default, or to "tracing off" for that part, so the caller decides between
 * warn-and-continue and `TRACEHOOK_STRICT`.
 */
export interface TracehookConfig extends SamplingConfig, OtlpConfig, SpansDirConfig, TimeBounds, InstrumentationSelection, ServiceConfig {
  /** `TRACEHOOK_DISABLED` or `OTEL_SDK_DISABLED` is `true`: load nothing. */
  disabled: boolean;
  /** `TRACEHOOK_STRICT=true`: configuration errors exit with status 1 before the app starts. */
  strict: boolean;
  /** `TRACEHOOK_STARTUP_HOOK`, `module:attribute`, or undefined for the built-in default hook. */
  startupHook?: string;
  /** `TRACEHOOK_EXPORTER_IMPORT_PATH`, `module:function` returning SpanProcessor[]. */
  exporterImportPath?: string;
  /** The first of {@link tracesExporters}, `none` when that is empty. */
  tracesExporter: TracesExporterName | 'none';
  /** The exporters the default hook builds, from `OTEL_TRACES_EXPORTER` (a list) and the OTLP endpoint variables. */
  tracesExporters: TracesExporterName[];
  /** `TRACEHOOK_MAX_QUEUE_BYTES` and `OTEL_BSP_*`: queueing and batching of ended spans. */
  spanQueue: SpanQueueConfig;
  /** `TRACEHOOK_SPANS_MAX_BYTES`: the size a span file may reach, bytes; default 256 MiB. */
  spansMaxBytes: number;
  /** `OTEL_PROPAGATORS`, lowercased; default `['tracecontext', 'baggage']`. */
  propagators: string[];
  /** `TRACEHOOK_TRACER`: tracehook's lean span or the SDK's own tracer; default `lean`. */
  tracer: TracerKind;
  /** `TRACEHOOK_OTLP_ENCODER`: who encodes span files and OTLP/HTTP requests; default `direct`. */
  otlpEncoder: OtlpEncoder;
  /**
   * `TRACEHOOK_MESSAGING_SPANS`: PRODUCER/CONSUMER spans for each message or task crossing into a
   * worker, child process or pool (default true); false only propagates the context across.
   */
  messagingSpans: boolean;
  /** `OTEL_LOG_LEVEL`: tracehook's own diagnostics and OpenTelemetry's `diag`; default `WARN`. */
  logLevel: LogLevel;
  /** What is recorded of incoming requests and trusted of them (redaction, bounds, incoming-trace policy). */
  requestData: RequestDataConfig;
  /** Problems found while parsing, in the order of the variables. */
  errors: ConfigError[];
}

/**
 * Reads the configuration from `env`: one reader per concern, each in its own file of src/config/.
 * Never throws. The preload and the public API take this thread's configuration from
 * {@link getConfig}; call this directly only for another environment (a worker's or child's `env`).
 */
export function readConfig(env: Env): TracehookConfig {
  const errors: ConfigError[] = [];
  const disabled = readBoolean(env, 'TRACEHOOK_DISABLED', false, errors) || readBoolean(env, 'OTEL_SDK_DISABLED', false, errors);
  const strict = readBoolean(env, 'TRACEHOOK_STRICT', false, errors);
  const sampling = readSamplingConfig(env, errors);
  const otlp = readOtlpConfig(env, errors);
  const tracesExporters = readTracesExporters(env, otlp.otlpEndpointSet, errors);
  const timeBounds = readTimeBounds(env, errors);
  const propagators = readPropagators(env, errors);
  const selection = readInstrumentationSelection(env, errors);
  const messagingSpans = readBoolean(env, 'TRACEHOOK_MESSAGING_SPANS', true, errors);
  const spanQueue = readSpanQueueConfig(env, errors);
  const spansMaxBytes = readSpansMaxBytes(env, errors);
  const service = readServiceConfig(env, errors);
  const requestData = readRequestDataConfig(env, errors);
  const logLevel = readLogLevel(env, errors);
  return {
    disabled,
    tracer: readTracerKind(env, errors),
    otlpEncoder: readOtlpEncoder(env, errors),
    strict,
    startupHook: readString(env, 'TRACEHOOK_STARTUP_HOOK'),
    exporterImportPath: readString(env, 'TRACEHOOK_EXPORTER_IMPORT_PATH'),
    ...sampling,
    tracesExporter: tracesExporters[0] ?? 'none',
    tracesExporters,
    ...otlp,
    ...readSpansDirConfig(env),
    spanQueue,
    spansMaxBytes,
    ...timeBounds,
    propagators,
    ...selection,
    messagingSpans,
    ...service,
    logLevel,
    requestData,
    errors,
  };
}
