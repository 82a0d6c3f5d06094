/**
 * OpenTelemetry JS SDK internals (@opentelemetry/sdk-trace-base).
 * - Relies on: `BasicTracerProvider#_activeSpanProcessor` (2.x; `activeSpanProcessor` in 1.x), the
 *   `MultiSpanProcessor` every span's `onEnd` goes through, and its `_spanProcessors` list; and
 *   `BatchSpanProcessor#_flushOneBatch()` (BatchSpanProcessorBase), which sets the export time-out timer;
 *   `BasicTracerProvider#_tracerOptions` (what it passes each of its `Tracer`s: resource, sampler, span limits, id
 *   generator, the active span processor); a BatchSpanProcessor's or SimpleSpanProcessor's `_exporter` and
 *   BatchSpanProcessorBase's queue `_finishedSpans`.
 * - Since: `_spanProcessors`, `_flushOneBatch`, `_exporter` and `_finishedSpans` in 1.x and 2.x;
 *   `_activeSpanProcessor` and `_tracerOptions` since 2.0; checked against the version in devDependencies.
 * - When it is gone: {@link activeSpanProcessorOf} / {@link spanProcessorListOf} / {@link hasFlushOneBatch} say so
 *   (undefined, an empty list, false). A worker then always reports that it may hold spans (`terminate()` always asks
 *   it to flush: slower, nothing lost), and a BatchSpanProcessor's export timer stays ref'd (an export that never
 *   answers holds the process for up to its 30 s time-out at exit). Said at DEBUG level. Without `_tracerOptions`
 *   ({@link tracerOptionsOf}), tracehook's provider makes the SDK's own (heavier) spans. Without `_exporter`
 *   ({@link spanProcessorExporterOf}), a startup hook's exporter is not watched at exit (spans it cannot finish are
 *   lost without a line); without `_finishedSpans` ({@link finishedSpansOf}), its queue counts as empty there.
 *   Without `_activeSpanProcessor`, spans of a startup hook's provider still open at exit are not ended.
 * Used by src/workers/worker-threads-worker.ts, src/preload/unref-timers.ts, src/preload/hook-exporters.ts,
 * src/preload/hook-open-spans.ts and src/provider/lean-tracer-provider.ts; test/unit/compat.test.mjs.
 */

/** The processor every span of a provider ends through, and the list it fans out to. */
export interface ActiveSpanProcessor {
  onEnd(span: unknown): void;
  _spanProcessors?: unknown[];
}

/** The `BatchSpanProcessor` method that runs one export (and sets its time-out timer). */
export const FLUSH_ONE_BATCH = '_flushOneBatch';

/** The provider's active span processor (2.x `_activeSpanProcessor`, else 1.x `activeSpanProcessor`), or undefined. */
export function activeSpanProcessorOf(provider: unknown): ActiveSpanProcessor | undefined {
  if (typeof provider !== 'object' || provider === null) return undefined;
  const p = provider as { _activeSpanProcessor?: unknown; activeSpanProcessor?: unknown };
  const active = (p._activeSpanProcessor ?? p.activeSpanProcessor) as Partial<ActiveSpanProcessor> | undefined;
  return typeof active?.onEnd === 'function' ? (active as ActiveSpanProcessor) : undefined;
}

/** The span processors of a provider (its active processor's `_spanProcessors`), or undefined when not found. */
export function spanProcessorListOf(provider: unknown): unknown[] | undefined {
  const list = activeSpanProcessorOf(provider)?._spanProcessors;
  return Array.isArray(list) ? list : undefined;
}

/** Whether `processor` is a BatchSpanProcessor as the SDK writes it (it has `_flushOneBatch()`). */
export function hasFlushOneBatch(processor: unknown): boolean {
  return typeof (processor as { [FLUSH_ONE_BATCH]?: unknown } | null | undefined)?.[FLUSH_ONE_BATCH] === 'function';
}

/** What a `BasicTracerProvider` passes each of its tracers (`_tracerOptions`), as far as tracehook checks it. */
export interface SdkTracerOptions {
  spanProcessor: unknown;
  idGenerator: unknown;
}

/** `provider._tracerOptions` when it has a `spanProcessor` and an `idGenerator`, else undefined. Never throws. */
export function tracerOptionsOf<T extends SdkTracerOptions>(provider: unknown): T | undefined {
  const options = (provider as { _tracerOptions?: Partial<SdkTracerOptions> } | null | undefined)?._tracerOptions;
  return options?.spanProcessor !== undefined && options.idGenerator !== undefined ? (options as T) : undefined;
}

/** A span processor's `_exporter` when it has an `export` method (BatchSpanProcessor, SimpleSpanProcessor), else undefined. */
export function spanProcessorExporterOf<E extends { export: unknown }>(processor: unknown): E | undefined {
  const exporter = (processor as { _exporter?: { export?: unknown } } | null | undefined)?._exporter;
  return typeof exporter?.export === 'function' ? (exporter as E) : undefined;
}

/** BatchSpanProcessorBase's queue `_finishedSpans` (ended spans not yet handed to its exporter), or undefined. */
export function finishedSpansOf<S>(processor: unknown): readonly S[] | undefined {
  const spans = (processor as { _finishedSpans?: unknown } | null | undefined)?._finishedSpans;
  return Array.isArray(spans) ? (spans as S[]) : undefined;
}
