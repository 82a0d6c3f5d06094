import { logDebug } from '../diag/logger.js';
import { FLUSH_ONE_BATCH, hasFlushOneBatch, spanProcessorListOf } from '../compat/otel-sdk.js';
import { isPatched, unwrap, wrap } from '../patch/wrap.js';

const SET_TIMEOUT_SITE = { component: 'exit', id: 'unref-timers.setTimeout', otherwise: "the SDK's export timers may keep the process alive until they fire" };

/**
 * Runs `fn` with every timer it creates synchronously (through the global `setTimeout`) unref'd,
 * and returns what it returns.
 *
 * Exporting must never keep the process alive after the app's own work is done, but the
 * OpenTelemetry SDK arms ref'd timers around each export: the BatchSpanProcessor's export time-out
 * (30 s, `exportTimeoutMillis`), the TracerProvider's `forceFlush` time-out (30 s) and the OTLP
 * exporters' retry back-off (1–5 s). None is reachable from outside, but each is created
 * synchronously inside one call, so that call is run here. Only code running inside `fn` sees the
 * replaced `setTimeout`; it is restored before this returns or throws.
 */
export function withUnrefTimers<T>(fn: () => T): T {
  // Inside an outer call the global is already swapped: nothing to do, nothing to restore.
  const swapped = wrap(
    globalThis,
    'setTimeout',
    SET_TIMEOUT_SITE,
    (original) =>
      function setTimeout(this: unknown, ...args: Parameters<typeof original>) {
        const timer = Reflect.apply(original, this, args) as ReturnType<typeof original>;
        (timer as { unref?: () => void }).unref?.();
        return timer;
      } as typeof original,
  );
  try {
    return fn();
  } finally {
    if (swapped) unwrap(globalThis, 'setTimeout', SET_TIMEOUT_SITE);
  }
}

/**
 * Replaces `target[method]` on that object only with a call of the original inside
 * {@link withUnrefTimers}. Used on SDK internals (named at each call site); when the method is
 * missing (another SDK release), says so at DEBUG level and changes nothing.
 * @returns whether the method was found
 */
export function unrefTimersOf(target: unknown, method: string, what: string): boolean {
  const object = target as Record<string, (...args: unknown[]) => unknown> | undefined;
  const site = { component: 'exit', id: `unref-timers.${method}`, otherwise: `${what}'s timers may keep the process alive until they fire` };
  if (typeof object?.[method] === 'function' && isPatched(object[method], site.id)) return true;
  return wrap(
    object,
    method,
    site,
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        return withUnrefTimers(() => Reflect.apply(original, this, args));
      },
  );
}

/**
 * The span processors of a TracerProvider of the OpenTelemetry JS SDK: 2.x keeps them in
 * `_activeSpanProcessor._spanProcessors`, 1.x in `activeSpanProcessor._spanProcessors`.
 */
export function spanProcessorsOf(provider: unknown): unknown[] {
  const list = spanProcessorListOf(provider);
  if (list === undefined) logDebug('exit', "the TracerProvider does not list its span processors where the SDK keeps them; export timers stay ref'd");
  return list ?? [];
}

/**
 * Makes the export time-out timer of every BatchSpanProcessor of `provider` unref'd (created in its
 * `_flushOneBatch`): an export that never calls back, or an exporter whose `export()` throws (the
 * timer is then never cleared), would otherwise keep the process alive for 30 s after the app's
 * last line.
 */
export function unrefExportTimers(provider: unknown): void {
  for (const processor of spanProcessorsOf(provider)) {
    if (hasFlushOneBatch(processor)) unrefTimersOf(processor, FLUSH_ONE_BATCH, 'BatchSpanProcessor');
  }
}
