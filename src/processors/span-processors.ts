import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../config/config-error.js';
import type { TracehookConfig } from '../config/environment.js';
import { redactUrl } from '../config/otlp.js';
import { SPAN_FILES_SCHEDULE_DELAY_MS } from '../config/span-queue.js';
import { FileSpanExporter, LINE_SPANS } from '../exporters/file-span-exporter.js';
import { importFunction, requireFunction } from '../startup-hook/import-path.js';
import { BoundedBatchSpanProcessor } from './bounded-batch-span-processor.js';

const VARIABLE = 'TRACEHOOK_EXPORTER_IMPORT_PATH';
const PROCESSOR_METHODS = ['onStart', 'onEnd', 'forceFlush', 'shutdown'] as const;

/**
 * Span processors from Ray Serve's exporter import path: a function of no parameters that returns
 * an array of SpanProcessor (or a promise of one).
 * @param synchronous - load the module with `require()` where it can be (as the `--require` entry
 *   does for a startup hook), so that a synchronous function's processors are there before the
 *   app's first line; otherwise, or when that fails, `import()`.
 * @returns the processors, or a promise of them when the module was imported or the function is async
 * @throws ConfigError naming `TRACEHOOK_EXPORTER_IMPORT_PATH` when the function is missing, takes
 *   parameters, throws, returns a non-array or an item lacking onStart/onEnd/forceFlush/shutdown
 *   (thrown when loaded synchronously, else as a rejected promise).
 * @see Anyscale docs, "Tracing guide" for Ray Serve (https://docs.anyscale.com/monitoring/tracing), `exporter_import_path`; Ray pull request 61230, "Add tracing support in Ray Serve" (https://github.com/ray-project/ray/pull/61230)
 */
export function spanProcessorsFromImportPath(value: string, synchronous = false): SpanProcessor[] | Promise<SpanProcessor[]> {
  const fn = synchronous ? requireFunction(VARIABLE, value) : undefined;
  if (fn) return processorsOf(value, fn);
  return importFunction(VARIABLE, value).then((f) => processorsOf(value, f));
}

const EXPECTED = 'a function of no parameters returning an array of SpanProcessor';

function processorsOf(value: string, fn: (...args: unknown[]) => unknown): SpanProcessor[] | Promise<SpanProcessor[]> {
  if (fn.length !== 0) throw new ConfigError(VARIABLE, value, EXPECTED, `it declares ${fn.length} parameter(s)`);
  const threw = (err: unknown) => new ConfigError(VARIABLE, value, EXPECTED, `it threw: ${(err as Error)?.message ?? String(err)}`);
  let result: unknown;
  try {
    result = fn();
  } catch (err) {
    throw threw(err);
  }
  if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
    return Promise.resolve(result).then(
      (r) => checkedProcessors(value, r),
      (err: unknown) => {
        throw threw(err);
      },
    );
  }
  return checkedProcessors(value, result);
}

function checkedProcessors(value: string, result: unknown): SpanProcessor[] {
  if (!Array.isArray(result)) throw new ConfigError(VARIABLE, value, EXPECTED, `it returned ${result === null ? 'null' : typeof result}`);
  result.forEach((item, i) => {
    const missing = PROCESSOR_METHODS.filter((m) => typeof (item as Record<string, unknown> | null)?.[m] !== 'function');
    if (missing.length > 0) throw new ConfigError(VARIABLE, value, EXPECTED, `item ${i} has no ${missing.join('/')}`);
  });
  return result as SpanProcessor[];
}

/**
 * The span processors of the default hook, in this order of precedence: the exporter import path;
 * `OTEL_TRACES_EXPORTER` (`otlp`, `console`, `none`; an OTLP endpoint alone means `otlp`); else span
 * files under `TRACEHOOK_SPANS_DIR` (written within {@link SPAN_FILES_SCHEDULE_DELAY_MS} of a span's end unless
 * `OTEL_BSP_SCHEDULE_DELAY` says otherwise). Span files and OTLP share one {@link BoundedBatchSpanProcessor}:
 * one byte bound on queued spans (`TRACEHOOK_MAX_QUEUE_BYTES`) and one count of every loss by reason,
 * whatever the destination; `console` exports each span as it ends.
 * @param synchronous - see {@link spanProcessorsFromImportPath}
 * @throws ConfigError from {@link spanProcessorsFromImportPath}
 */
export function defaultSpanProcessors(config: TracehookConfig, synchronous = false): SpanProcessor[] | Promise<SpanProcessor[]> {
  if (config.exporterImportPath) return spanProcessorsFromImportPath(config.exporterImportPath, synchronous);
  switch (config.tracesExporter) {
    case 'none':
      return [];
    case 'console':
      return [new SimpleSpanProcessor(new ConsoleSpanExporter())];
    case 'otlp': {
      // Required here: span files (the default) and every worker thread writing them do not evaluate the OTLP exporters and encoders.
      const { OTLP_CONCURRENT_EXPORTS, createOtlpSpanExporter } = require('../exporters/otlp-span-exporter.js') as typeof import('../exporters/otlp-span-exporter.js');
      return [new BoundedBatchSpanProcessor(createOtlpSpanExporter(config.otlpProtocol), { ...config.spanQueue, destination: otlpDestination(config), maxConcurrentExports: OTLP_CONCURRENT_EXPORTS })];
    }
    default: {
      const exporter = new FileSpanExporter(config.spansDir, { fallbackDir: config.spansFallbackDir, maxBytes: config.spansMaxBytes });
      const scheduledDelayMillis = config.spanQueue.scheduledDelayMillis ?? SPAN_FILES_SCHEDULE_DELAY_MS;
      return [new BoundedBatchSpanProcessor(exporter, { ...config.spanQueue, scheduledDelayMillis, maxExportBatchSize: LINE_SPANS, destination: 'span files' })];
    }
  }
}

/** The backend as diagnostics name it: protocol and URL, credentials redacted (gRPC's endpoint is the exporter's own reading). */
function otlpDestination(config: TracehookConfig): string {
  return config.otlpProtocol === 'grpc' ? 'OTLP grpc' : `OTLP ${config.otlpProtocol} ${redactUrl(config.otlpTracesUrl)}`;
}
