import { activeSpanProcessorOf, spanProcessorListOf } from '../compat/otel-sdk.js';
import { logDebug } from '../diag/logger.js';
import { OpenSpanProcessor, flushOpenSpansWith, isOpenSpanProcessor } from '../processors/open-span-processor.js';

/**
 * Gives a startup hook's own TracerProvider (NodeSDK's, or any SDK `BasicTracerProvider`) the open-span tracking
 * tracehook's providers have: an {@link OpenSpanProcessor} is put first in the list its active span processor fans
 * out to (compat/otel-sdk.ts, `_activeSpanProcessor._spanProcessors`), so that spans still open at exit (a request
 * whose response callback calls `process.exit()`) are ended as incomplete by the exit steps and exported through
 * the hook's own span processors with the final flush, within `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`. Spans the hook
 * started before this are not tracked. Nothing is done when the provider already has one (tracehook's providers),
 * and, said at DEBUG level, when its processors cannot be reached (another SDK release, a provider of its own):
 * such spans are then lost at `process.exit()`, as without tracehook. Never throws.
 * @returns whether the provider's open spans are tracked
 */
export function trackHookOpenSpans(provider: { forceFlush(): Promise<void> }): boolean {
  const list = spanProcessorListOf(provider);
  if (list === undefined || activeSpanProcessorOf(provider) === undefined) {
    logDebug('exit', "the startup hook's TracerProvider has no span processor list where the SDK keeps it: its spans still open at process.exit() are not ended");
    return false;
  }
  if (list.some(isOpenSpanProcessor)) return true;
  list.unshift(new OpenSpanProcessor());
  flushOpenSpansWith(() => provider.forceFlush());
  return true;
}
