import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../config/config-error.js';
import type { TracehookConfig } from '../config/environment.js';
import { FileSpanExporter } from '../exporters/file-span-exporter.js';
import { createOtlpSpanExporter } from '../exporters/otlp-span-exporter.js';
import { importFunction } from '../startup-hook/import-path.js';

const VARIABLE = 'TRACEHOOK_EXPORTER_IMPORT_PATH';
const PROCESSOR_METHODS = ['onStart', 'onEnd', 'forceFlush', 'shutdown'] as const;

/**
 * Span processors from Ray Serve's exporter import path: a function of no parameters that returns
 * an array of SpanProcessor.
 * @throws ConfigError naming `TRACEHOOK_EXPORTER_IMPORT_PATH` when the function is missing, takes
 *   parameters, throws, returns a non-array or an item lacking onStart/onEnd/forceFlush/shutdown.
 * @see ../shared/reference/001 (Anyscale, `exporter_import_path`), 004 (Ray PR #61230)
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
 * files under `TRACEHOOK_SPANS_DIR`. Batching (`OTEL_BSP_*`) keeps export off the request path;
 * `console` exports each span as it ends.
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
      return [new BatchSpanProcessor(createOtlpSpanExporter(config.otlpProtocol))];
    default:
      return [new BatchSpanProcessor(new FileSpanExporter(config.spansDir))];
  }
}
