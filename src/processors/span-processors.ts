import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../config/config-error.js';
import type { TracehookConfig } from '../config/environment.js';
import { redactUrl } from '../config/otlp.js';
import { FileSpanExporter, LINE_SPANS } from '../exporters/file-span-exporter.js';
import { createOtlpSpanExporter } from '../exporters/otlp-span-exporter.js';
import { importFunction } from '../startup-hook/import-path.js';
import { BoundedBatchSpanProcessor } from './bounded-batch-span-processor.js';

const VARIABLE = 'TRACEHOOK_EXPORTER_IMPORT_PATH';
const PROCESSOR_METHODS = ['onStart', 'onEnd', 'forceFlush', 'shutdown'] as const;

/**
 * Span processors from Ray Serve's exporter import path: a function of no parameters that returns
 * an array of SpanProcessor.
 * @throws ConfigError naming `TRACEHOOK_EXPORTER_IMPORT_PATH` when the function is missing, takes
 *   parameters, throws, returns a non-array or an item lacking onStart/onEnd/forceFlush/shutdown.
 * @see Anyscale docs, "Tracing guide" for Ray Serve (https://docs.anyscale.com/monitoring/tracing), `exporter_import_path`; Ray pull request 61230, "Add tracing support in Ray Serve" (https://github.com/ray-project/ray/pull/61230)
 */
export async function spanProcessorsFromImportPath(value: string): Promise<SpanProcessor[]> {
  const fn = await importFunction(VARIABLE, value);
  const expected = 'a function of no parameters returning an array of SpanProcessor';
  if (fn.length !== 0) throw new ConfigError(VARIABLE, value, expected, `it declares ${fn.length} parameter(s)`);
  let result: unknown;
  try {
    result = await fn();
  } catch (err) {
    throw new ConfigError(VARIABLE, value, expected, `it threw: ${(err as Error)?.message ?? String(err)}`);
  }
  if (!Array.isArray(result)) throw new ConfigError(VARIABLE, value, expected, `it returned ${result === null ? 'null' : typeof result}`);
  result.forEach((item, i) => {
    const missing = PROCESSOR_METHODS.filter((m) => typeof (item as Record<string, unknown> | null)?.[m] !== 'function');
    if (missing.length > 0) throw new ConfigError(VARIABLE, value, expected, `item ${i} has no ${missing.join('/')}`);
  });
  return result as SpanProcessor[];
}

/**
 * The span processors of the default hook, in this order of precedence: the exporter import path;
 * `OTEL_TRACES_EXPORTER` (`otlp`, `console`, `none`; an OTLP endpoint alone means `otlp`); else span
 * files under `TRACEHOOK_SPANS_DIR`. Span files and OTLP share one {@link BoundedBatchSpanProcessor}:
 * one byte bound on queued spans (`TRACEHOOK_MAX_QUEUE_BYTES`) and one count of every loss by reason,
 * whatever the destination; `console` exports each span as it ends.
 * @throws ConfigError from {@link spanProcessorsFromImportPath}
 */
export function defaultSpanProcessors(config: TracehookConfig): SpanProcessor[] | Promise<SpanProcessor[]> {
  if (config.exporterImportPath) return spanProcessorsFromImportPath(config.exporterImportPath);
  switch (config.tracesExporter) {
    case 'none':
      return [];
    case 'console':
      return [new SimpleSpanProcessor(new ConsoleSpanExporter())];
    case 'otlp':
      return [new BoundedBatchSpanProcessor(createOtlpSpanExporter(config.otlpProtocol), { ...config.spanQueue, destination: otlpDestination(config) })];
    default: {
      const exporter = new FileSpanExporter(config.spansDir, { fallbackDir: config.spansFallbackDir });
      return [new BoundedBatchSpanProcessor(exporter, { ...config.spanQueue, spansPerExport: LINE_SPANS, destination: 'span files' })];
    }
  }
}

/** The backend as diagnostics name it: protocol and URL, credentials redacted (gRPC's endpoint is the exporter's own reading). */
function otlpDestination(config: TracehookConfig): string {
  return config.otlpProtocol === 'grpc' ? 'OTLP grpc' : `OTLP ${config.otlpProtocol} ${redactUrl(config.otlpTracesUrl)}`;
}
