import { ConfigError } from './config-error.js';

/** How tracehook's span processor queues and batches ended spans before export. */
export interface SpanQueueConfig {
  /** `TRACEHOOK_MAX_QUEUE_BYTES`: the bound on the estimated size of queued spans, bytes; default 64 MiB. */
  maxQueueBytes: number;
  /** `OTEL_BSP_MAX_QUEUE_SIZE`, only when set: a bound in spans as well; default none (bytes only). */
  maxQueueSpans?: number;
  /** `OTEL_BSP_SCHEDULE_DELAY`: the longest an ended span waits before export, ms; default 5000. */
  scheduledDelayMs: number;
  /** `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`: spans per OTLP export, and the queue length that starts one early; default 512. */
  maxExportBatchSize: number;
  /** `OTEL_BSP_EXPORT_TIMEOUT`: how long an export may take before its spans count as failed, ms; default 30000. */
  exportTimeoutMs: number;
}

/** Default of `TRACEHOOK_MAX_QUEUE_BYTES`: 64 MiB. */
export const DEFAULT_MAX_QUEUE_BYTES = 64 * 1024 * 1024;

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gib: 1024 ** 3 };

type Env = Record<string, string | undefined>;

/**
 * Reads the span queue variables; each bad value becomes a ConfigError with its default kept.
 * @see OpenTelemetry specification, "Environment Variable Specification", Batch Span Processor
 */
export function readSpanQueueConfig(env: Env, errors: ConfigError[]): SpanQueueConfig {
  const int = (name: string, fallback: number, min: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= min) return n;
    errors.push(keep(new ConfigError(name, raw, `a whole number >= ${min}; using ${fallback}`)));
    return fallback;
  };
  const maxQueueSpans = env.OTEL_BSP_MAX_QUEUE_SIZE?.trim() ? int('OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1) : undefined;
  return {
    maxQueueBytes: readBytes(env, errors),
    maxQueueSpans,
    scheduledDelayMs: int('OTEL_BSP_SCHEDULE_DELAY', 5000, 0),
    maxExportBatchSize: int('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1),
    exportTimeoutMs: int('OTEL_BSP_EXPORT_TIMEOUT', 30000, 1),
  };
}

function readBytes(env: Env, errors: ConfigError[]): number {
  const raw = env.TRACEHOOK_MAX_QUEUE_BYTES?.trim();
  if (!raw) return DEFAULT_MAX_QUEUE_BYTES;
  const m = /^(\d+)\s*([a-z]*)$/i.exec(raw);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  if (m && unit !== undefined) return Number(m[1]) * unit;
  errors.push(keep(new ConfigError('TRACEHOOK_MAX_QUEUE_BYTES', raw, 'bytes as a whole number, optionally with KiB, MiB or GiB; using 64MiB')));
  return DEFAULT_MAX_QUEUE_BYTES;
}

function keep(err: ConfigError): ConfigError {
  err.disablesTracing = false;
  return err;
}
