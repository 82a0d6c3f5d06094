import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { getConfig } from '../config/current.js';
import { createResource } from '../provider/resource.js';
import { createSampler } from '../provider/sampler.js';
import { defaultSpanProcessors } from '../processors/span-processors.js';
import { registerTracerProvider } from '../provider/tracer-provider.js';
import { RuntimeContextSpanProcessor } from '../processors/runtime-context-span-processor.js';

/**
 * The built-in default tracing startup hook (`TRACEHOOK_STARTUP_HOOK` unset, `default` or `file`):
 * a TracerProvider with the configured sampler and resource and the span processors the
 * environment selects (exporter import path, `OTEL_TRACES_EXPORTER`, else span files under
 * `TRACEHOOK_SPANS_DIR`), preceded by a {@link RuntimeContextSpanProcessor} that stamps pid,
 * thread id, cluster worker id and request id on every span. Synchronous unless an exporter import path has to be imported, so that
 * `--require` also traces from the app's first line.
 * @param synchronous - load an exporter import path with `require()` where it can be (the `--require`
 *   entry, which cannot wait for a promise before the app's first line); default false: `import()`
 * @throws ConfigError for a bad `TRACEHOOK_EXPORTER_IMPORT_PATH` (thrown when loaded synchronously, else as a rejected promise)
 * @see Ray docs, "Tracing" (https://docs.ray.io/en/latest/ray-observability/user-guides/ray-tracing.html): the default hook writes spans to files under /tmp/spans
 */
export function setupDefaultTracing(synchronous = false): void | Promise<void> {
  const config = getConfig();
  const register = (spanProcessors: SpanProcessor[]) => {
    registerTracerProvider({ spanProcessors: [new RuntimeContextSpanProcessor(), ...spanProcessors], sampler: createSampler(config), resource: createResource(config) });
  };
  // One set of span processors per exporter of OTEL_TRACES_EXPORTER (`console,otlp`: both).
  const processors = config.exporterImportPath
    ? defaultSpanProcessors(config, synchronous)
    : config.tracesExporters.flatMap((tracesExporter) => defaultSpanProcessors({ ...config, tracesExporter }) as SpanProcessor[]);
  return Array.isArray(processors) ? register(processors) : processors.then(register);
}
