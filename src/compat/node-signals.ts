/**
 * Node.js internal: a signal's handle is closed with its last listener.
 * - Relies on: Node.js's own `'removeListener'` listener on `process`, `stopListeningIfSignal`
 *   (lib/internal/process/per_thread.js, added at bootstrap), which closes the signal's handle when
 *   `process.listenerCount(signal)` is 0 after a listener is removed; and its `'newListener'` twin
 *   `startListeningIfSignal`. So a count reported while a `'removeListener'` event is emitted decides whether the
 *   signal keeps being caught.
 * - Since: Node.js 0.x; by these names in Node.js 20 to 26.
 * - When it is gone ({@link signalHandleListener} returns undefined): src/preload/signals.ts's count correction has
 *   nothing to steer; the app removing its own last listener may then end the preload's signal handling, so a
 *   signal after that ends the process by the default action without its spans flushed (what the app asked for).
 *   Said at DEBUG level when the preload's signal handling starts.
 * Used by src/preload/signals.ts; test/unit/compat.test.mjs.
 */

/** Node.js's `'removeListener'` listener that closes a signal's handle, or undefined when there is none by that name. */
export function signalHandleListener(proc: NodeJS.EventEmitter = process): ((...args: unknown[]) => unknown) | undefined {
  return proc.listeners('removeListener').find((f) => f.name === 'stopListeningIfSignal') as ((...args: unknown[]) => unknown) | undefined;
}
