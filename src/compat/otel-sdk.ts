/**
 * OpenTelemetry JS SDK internals (@opentelemetry/sdk-trace-base).
 * - Relies on: `BasicTracerProvider#_activeSpanProcessor` (2.x; `activeSpanProcessor` in 1.x), the
 *   `MultiSpanProcessor` every span's `onEnd` goes through, and its `_spanProcessors` list; and
 *   `BatchSpanProcessor#_flushOneBatch()` (BatchSpanProcessorBase), which sets the export time-out timer.
 * - Since: `_spanProcessors` and `_flushOneBatch` in 1.x and 2.x; `_activeSpanProcessor` since 2.0; checked against the
 *   version in devDependencies.
 * - When it is gone: {@link activeSpanProcessorOf} / {@link spanProcessorListOf} / {@link hasFlushOneBatch} say so
 *   (undefined, an empty list, false). A worker then always reports that it may hold spans (`terminate()` always asks
 *   it to flush: slower, nothing lost), and a BatchSpanProcessor's export timer stays ref'd (an export that never
 *   answers holds the process for up to its 30 s time-out at exit). Said at DEBUG level.
 * Used by src/workers/worker-threads-worker.ts and src/preload/unref-timers.ts; test/unit/compat.test.mjs.
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
