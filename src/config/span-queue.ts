import { readBytes } from './bytes.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';
import { readWholeNumber } from './whole-number.js';

/** How tracehook's span processor queues and batches ended spans before export; the SDK's BatchSpanProcessor option names where it has them. */
export interface SpanQueueConfig {
  /** `TRACEHOOK_MAX_QUEUE_BYTES`: the bound on the estimated size of queued spans, bytes; default 16 MiB. */
  maxQueueBytes: number;
  /** `OTEL_BSP_MAX_QUEUE_SIZE`, only when set: a bound in spans as well; default none (bytes only). */
  maxQueueSize?: number;
  /**
   * `OTEL_BSP_SCHEDULE_DELAY`: the longest an ended span waits before export, ms; undefined when not set: each
   * destination's default then ({@link SPAN_FILES_SCHEDULE_DELAY_MS} for span files, 5000 for OTLP as in the SDK).
   */
  scheduledDelayMillis?: number;
  /** `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`: spans per OTLP export, and the queue length that starts one early; default 512. */
  maxExportBatchSize: number;
  /** `OTEL_BSP_EXPORT_TIMEOUT`: how long an export may take before its spans count as failed, ms; default 30000. */
  exportTimeoutMillis: number;
}

/**
 * Default of `TRACEHOOK_MAX_QUEUE_BYTES`: 16 MiB of estimated heap, some 16 000 HTTP spans (8 times the
 * stock BatchSpanProcessor's 2048). A queue full at its bound costs the process a few times its
 * bound in RSS (V8 grows the old space ahead of the live heap): bench: memory, peak RSS, backend
 * down − up, tracehook-otlp row (the OTLP backend down under full load).
 */
export const DEFAULT_MAX_QUEUE_BYTES = 16 * 1024 * 1024;

/**
 * The longest an ended span waits before it is written to a span file when `OTEL_BSP_SCHEDULE_DELAY` is not set, ms:
 * span files are local, so a span is visible within about half a second of its end rather than the SDK's 5 s
 * under load a line is written each time 64 spans are queued anyway.
 */
export const SPAN_FILES_SCHEDULE_DELAY_MS = 500;

/**
 * Reads the span queue variables; each bad value becomes a ConfigError with its default kept.
 * @see OpenTelemetry specification, "Environment Variable Specification", Batch Span Processor
 */
export function readSpanQueueConfig(env: Env, errors: ConfigError[]): SpanQueueConfig {
  return {
    maxQueueBytes: readBytes(env, 'TRACEHOOK_MAX_QUEUE_BYTES', DEFAULT_MAX_QUEUE_BYTES, '16MiB', errors),
    maxQueueSize: readString(env, 'OTEL_BSP_MAX_QUEUE_SIZE') ? readWholeNumber(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1, errors) : undefined,
    scheduledDelayMillis: readString(env, 'OTEL_BSP_SCHEDULE_DELAY') ? readWholeNumber(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 0, errors, 'a whole number of ms') : undefined,
    maxExportBatchSize: readWholeNumber(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1, errors),
    exportTimeoutMillis: readWholeNumber(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30000, 1, errors, 'a whole number of ms'),
  };
}
