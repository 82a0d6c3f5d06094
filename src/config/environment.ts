import { isTrue, readBoolean } from './boolean.js';
import { ConfigError } from './config-error.js';
import type { OtlpEncoder } from './encoder.js';
import { readOtlpEncoder } from './encoder.js';
import type { RequestDataConfig } from './request-data.js';
import { readRequestDataConfig } from './request-data.js';
import { readStartupHookTimeoutMs } from './startup.js';
import { readTracesExporters } from './traces-exporter.js';
import type { TracesExporterName } from './traces-exporter.js';
import { DEFAULT_INSTRUMENTATIONS } from './instrumentation-defaults.js';
import type { SpanQueueConfig } from './span-queue.js';
import { readSpanQueueConfig } from './span-queue.js';
import { readSpansDirConfig } from './spans-dir.js';

/**
 * Everything tracehook reads from the environment, parsed once. This is the only module that
 * reads `process.env` for configuration (the OTLP exporters still read their own `OTEL_EXPORTER_OTLP_*`
 * variables, as the specification has them do).
 *
 * Parsing never throws: each bad value becomes a {@link ConfigError} in `errors` and the field
 * falls back to "tracing off" for that part, so the caller decides between warn-and-continue and
 * `TRACEHOOK_STRICT`.
 */
export interface TracehookConfig {
  /** `TRACEHOOK_DISABLED` or `OTEL_SDK_DISABLED` is `true`: load nothing. */
  disabled: boolean;
  /** `TRACEHOOK_STRICT=true`: configuration errors exit with status 1 before the app starts. */
  strict: boolean;
  /** `TRACEHOOK_STARTUP_HOOK`, `module:attribute`, or undefined for the built-in default hook. */
  startupHook?: string;
  /** `TRACEHOOK_EXPORTER_IMPORT_PATH`, `module:function` returning SpanProcessor[]. */
  exporterImportPath?: string;
  /** `TRACEHOOK_SAMPLING_RATIO` in [0, 1]; undefined when not set. */
  samplingRatio?: number;
  /** `OTEL_TRACES_SAMPLER` (lowercased) and its `OTEL_TRACES_SAMPLER_ARG`. */
  sampler?: { name: string; arg?: string };
  /** The first of {@link tracesExporters}, `none` when that is empty. */
  tracesExporter: TracesExporterName | 'none';
  /** The exporters the default hook builds, from `OTEL_TRACES_EXPORTER` (a list) and the OTLP endpoint variables. */
  tracesExporters: TracesExporterName[];
  /** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL`; default `http/protobuf`. */
  otlpProtocol: 'http/protobuf' | 'http/json' | 'grpc';
  /**
   * Where OTLP/HTTP trace requests go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else
   * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else `http://localhost:4318/v1/traces`.
   */
  otlpTracesUrl: string;
  /** `OTEL_EXPORTER_OTLP_HEADERS` then `OTEL_EXPORTER_OTLP_TRACES_HEADERS` (`k=v,k2=v2`, percent-decoded). */
  otlpHeaders: Record<string, string>;
  /** `TRACEHOOK_SPANS_DIR`; default `/tmp/spans`. */
  spansDir: string;
  /** The private per-user directory used when the default spans directory is unsafe; unset for an explicit one. */
  spansFallbackDir?: string;
  /** `TRACEHOOK_MAX_QUEUE_BYTES` and `OTEL_BSP_*`: queueing and batching of ended spans. */
  spanQueue: SpanQueueConfig;
  /** `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`: the bound on flushing at exit, ms; default 400. */
  shutdownTimeoutMs: number;
  /** `TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS`: the bound on the startup hook settling, ms; default 3000. */
  startupHookTimeoutMs: number;
  /** `OTEL_PROPAGATORS`, lowercased; default `['tracecontext', 'baggage']`. */
  propagators: string[];
  /** Instrumentation names (`http`, `grpc`, `express`, …) after `OTEL_NODE_ENABLED/DISABLED_INSTRUMENTATIONS`. */
  instrumentations: string[];
  /** `TRACEHOOK_HTTP_INSTRUMENTATION`: who makes HTTP SERVER spans; default `fast`. */
  httpInstrumentation: 'fast' | 'stock';
  /**
   * `TRACEHOOK_ESM_LOADER`: register import-in-the-middle's ESM loader hook. `auto` (default): only
   * when an instrumentation outside the default set is enabled.
   */
  esmLoader: 'auto' | 'true' | 'false';
  /**
   * `TRACEHOOK_MESSAGING_SPANS`: PRODUCER/CONSUMER spans for each message or task crossing into a
   * worker, child process or pool (default true); false only propagates the context across.
   */
  messagingSpans: boolean;
  /** `TRACEHOOK_OTLP_ENCODER`: who encodes span files and OTLP/HTTP requests; default `direct`. */
  otlpEncoder: OtlpEncoder;
  /** `OTEL_SERVICE_NAME`, if set. */
  serviceName?: string;
  /** `OTEL_RESOURCE_ATTRIBUTES` as key/value pairs (percent-decoded). */
  resourceAttributes: Record<string, string>;
  /** What is recorded of incoming requests and trusted of them (redaction, bounds, incoming-trace policy). */
  requestData: RequestDataConfig;
  /** Problems found while parsing, in the order of the variables. */
  errors: ConfigError[];
}

/**
 * Whether the ESM entry registers import-in-the-middle's loader hook: the default instrumentations
 * need none (node:http is patched before the app imports it, fetch reports through diagnostics
 * channels, their other targets are CommonJS packages, which reach require-in-the-middle through
 * the ESM-CJS bridge when imported from ESM); others may target ES-module-only packages.
 */
export function wantsEsmLoader(config: Pick<TracehookConfig, 'esmLoader' | 'instrumentations'>): boolean {
  if (config.esmLoader !== 'auto') return config.esmLoader === 'true';
  return config.instrumentations.some((name) => !(DEFAULT_INSTRUMENTATIONS as readonly string[]).includes(name));
}

/**
 * Default of `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`, ms: the exit budget is 0.5 s after the app's
 * last line even with a backend that refuses (the OTLP exporter retries until the bound) or never
 * answers; a local Collector takes a few ms per batch, a remote vendor endpoint can need more.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 400;

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
const PROPAGATORS = ['tracecontext', 'baggage', 'none'];
const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;

type Env = Record<string, string | undefined>;

/** Marks an error whose variable has a documented fallback, so tracing goes on. */
function fallback(err: ConfigError): ConfigError {
  err.disablesTracing = false;
  return err;
}

/** Reads the configuration from `env` (default `process.env`). Never throws. */
export function readConfig(env: Env = process.env): TracehookConfig {
  const errors: ConfigError[] = [];
  const str = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const list = (name: string) =>
    (str(name) ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);

  const disabled = readBoolean(env, 'TRACEHOOK_DISABLED', false, errors) || readBoolean(env, 'OTEL_SDK_DISABLED', false, errors);
  const strict = readBoolean(env, 'TRACEHOOK_STRICT', false, errors);

  let samplingRatio: number | undefined;
  const ratio = str('TRACEHOOK_SAMPLING_RATIO');
  if (ratio !== undefined) {
    const n = Number(ratio);
    if (Number.isFinite(n) && n >= 0 && n <= 1) samplingRatio = n;
    else errors.push(new ConfigError('TRACEHOOK_SAMPLING_RATIO', ratio, 'a number in [0, 1]'));
  }

  let sampler: TracehookConfig['sampler'];
  const samplerName = str('OTEL_TRACES_SAMPLER')?.toLowerCase();
  if (samplerName !== undefined) {
    if (SAMPLERS.includes(samplerName)) sampler = { name: samplerName, arg: str('OTEL_TRACES_SAMPLER_ARG') };
    else errors.push(new ConfigError('OTEL_TRACES_SAMPLER', samplerName, `one of ${SAMPLERS.join(', ')}`));
  }

  const tracesExporters = readTracesExporters(env, (str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? str('OTEL_EXPORTER_OTLP_ENDPOINT')) !== undefined, errors);

  const protocol = (str('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? str('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf').toLowerCase();
  let otlpProtocol: TracehookConfig['otlpProtocol'] = 'http/protobuf';
  if ((PROTOCOLS as readonly string[]).includes(protocol)) otlpProtocol = protocol as TracehookConfig['otlpProtocol'];
  else errors.push(fallback(new ConfigError('OTEL_EXPORTER_OTLP_PROTOCOL', protocol, `one of ${PROTOCOLS.join(', ')}; using http/protobuf`)));

  let shutdownTimeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const timeout = str('TRACEHOOK_SHUTDOWN_TIMEOUT_MS');
  if (timeout !== undefined) {
    const n = Number(timeout);
    if (Number.isInteger(n) && n >= 0) shutdownTimeoutMs = n;
    else errors.push(fallback(new ConfigError('TRACEHOOK_SHUTDOWN_TIMEOUT_MS', timeout, `a whole number of ms >= 0; using ${DEFAULT_SHUTDOWN_TIMEOUT_MS}`)));
  }

  let propagators = list('OTEL_PROPAGATORS');
  if (propagators.length === 0) propagators = ['tracecontext', 'baggage'];
  const unknownPropagators = propagators.filter((p) => !PROPAGATORS.includes(p));
  if (unknownPropagators.length > 0) {
    errors.push(fallback(new ConfigError('OTEL_PROPAGATORS', env.OTEL_PROPAGATORS ?? '', `a list of ${PROPAGATORS.join(', ')}; ignoring ${unknownPropagators.join(', ')}`)));
    propagators = propagators.filter((p) => PROPAGATORS.includes(p));
  }

  const enabled = list('OTEL_NODE_ENABLED_INSTRUMENTATIONS');
  const disabledInstr = new Set(list('OTEL_NODE_DISABLED_INSTRUMENTATIONS'));
  const instrumentations = (enabled.length > 0 ? enabled : [...DEFAULT_INSTRUMENTATIONS]).filter((n) => !disabledInstr.has(n));

  let httpInstrumentation: TracehookConfig['httpInstrumentation'] = 'fast';
  const http = str('TRACEHOOK_HTTP_INSTRUMENTATION')?.toLowerCase();
  if (http === 'stock' || http === 'fast') httpInstrumentation = http;
  else if (http !== undefined) errors.push(fallback(new ConfigError('TRACEHOOK_HTTP_INSTRUMENTATION', http, '`fast` or `stock`; using fast')));

  let esmLoader: TracehookConfig['esmLoader'] = 'auto';
  const loader = str('TRACEHOOK_ESM_LOADER')?.toLowerCase();
  if (loader === 'auto' || loader === 'true' || loader === 'false') esmLoader = loader;
  else if (loader !== undefined) errors.push(fallback(new ConfigError('TRACEHOOK_ESM_LOADER', loader, '`auto`, `true` or `false`; using auto')));

  const base = str('OTEL_EXPORTER_OTLP_ENDPOINT')?.replace(/\/+$/, '');
  const otlpTracesUrl = str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? (base ? `${base}/v1/traces` : 'http://localhost:4318/v1/traces');
  const otlpHeaders = {
    ...parseKeyValues('OTEL_EXPORTER_OTLP_HEADERS', str('OTEL_EXPORTER_OTLP_HEADERS'), errors),
    ...parseKeyValues('OTEL_EXPORTER_OTLP_TRACES_HEADERS', str('OTEL_EXPORTER_OTLP_TRACES_HEADERS'), errors),
  };

  const messagingSpans = readBoolean(env, 'TRACEHOOK_MESSAGING_SPANS', true, errors);
  const otlpEncoder = readOtlpEncoder(env, errors);

  return {
    disabled,
    messagingSpans,
    otlpEncoder,
    httpInstrumentation,
    otlpTracesUrl,
    otlpHeaders,
    esmLoader,
    strict,
    startupHook: str('TRACEHOOK_STARTUP_HOOK'),
    exporterImportPath: str('TRACEHOOK_EXPORTER_IMPORT_PATH'),
    samplingRatio,
    sampler,
    tracesExporter: tracesExporters[0] ?? 'none',
    tracesExporters,
    otlpProtocol,
    ...readSpansDirConfig(env),
    spanQueue: readSpanQueueConfig(env, errors),
    shutdownTimeoutMs,
    startupHookTimeoutMs: readStartupHookTimeoutMs(env, errors),
    propagators,
    instrumentations: [...new Set(instrumentations)],
    serviceName: str('OTEL_SERVICE_NAME'),
    resourceAttributes: parseKeyValues('OTEL_RESOURCE_ATTRIBUTES', str('OTEL_RESOURCE_ATTRIBUTES'), errors),
    requestData: readRequestDataConfig(env, errors),
    errors,
  };
}

/**
 * `key1=value1,key2=value2`, values percent-decoded. A bad entry is skipped with an error that names
 * the variable and the entry's position but never its text: these variables carry API keys.
 * @see OpenTelemetry specification, Resource SDK, "Specifying resource information via an environment variable";
 *   OTLP Exporter, `OTEL_EXPORTER_OTLP_HEADERS`
 */
function parseKeyValues(variable: string, raw: string | undefined, errors: ConfigError[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  raw.split(',').forEach((pair, i) => {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq).trim();
    if (eq < 0 || !key) {
      const problem = eq < 0 ? "has no '='" : 'has an empty key';
      errors.push(fallback(new ConfigError(variable, undefined, `\`key=value\` entries separated by commas; ignoring that entry`, `entry ${i + 1} ${problem}`)));
      return;
    }
    try {
      out[key] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      out[key] = pair.slice(eq + 1).trim();
    }
  });
  return out;
}

/**
 * The cheap check the entries make before loading anything else: `TRACEHOOK_DISABLED` or
 * `OTEL_SDK_DISABLED` is `true` (case-insensitive), as {@link readBoolean} reads them.
 */
export function isDisabled(env: Env = process.env): boolean {
  return isTrue(env.TRACEHOOK_DISABLED) || isTrue(env.OTEL_SDK_DISABLED);
}
