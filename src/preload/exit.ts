import { closeBooks } from '../diag/loss-report.js';
import { logDebug } from '../diag/logger.js';
import { exitSafeExporters } from '../exporters/exit-safe-span-exporter.js';
import { endOpenSpans } from '../processors/open-span-processor.js';
import { getPreloadState } from '../state.js';
import type { ExitSignal } from './signals.js';
import { trackHookOpenSpans } from './hook-open-spans.js';
import { noteHookQueues, reportHookLosses, watchHookExporters } from './hook-exporters.js';
import { EXIT_SIGNALS, addHiddenListener, appSignalListeners, isListening, onProcessEvent, patchSelfKill, removeHiddenSignalListener } from './signals.js';
import { unrefExportTimers, withUnrefTimers } from './unref-timers.js';
import { isMainThread } from '../workers/thread.js';

/** What exit handling needs of a TracerProvider (BasicTracerProvider has it). */
export interface Flushable {
  forceFlush(options?: { timeoutMillis?: number }): Promise<void>;
}

/**
 * The last things done in this thread, in this order, once the process can no longer run its event
 * loop (the `exit` event, or right before a signal's default action ends it). Each step must finish
 * before it returns; `getPreloadState().exitDeadline` is the time past which none may wait.
 * Add a step here as one line; each runs in its own try/catch.
 */
function finalSteps(provider: Flushable, reason: string): Array<[name: string, step: () => void]> {
  return [
    ['end the spans still open', () => endSpansStillOpen(reason)],
    ["note what the startup hook's own span processors hold", noteHookQueues],
    ['export every ended span', () => exportNow(provider)],
    ["report what the startup hook's own exporters could not send", reportHookLosses],
    ['report what was lost', closeBooks],
  ];
}

/**
 * Ends the spans in flight (requests at a crash, `process.exit()` or a signal), marked
 * `tracehook.incomplete`, so the export that follows takes them. Exports are synchronous from here
 * on: nothing asynchronous completes any more.
 */
function endSpansStillOpen(reason: string): void {
  getPreloadState().synchronousExport = true;
  endOpenSpans(reason);
}

/**
 * Hands every ended span to the exporters and has them written or sent before returning: span
 * files and the console write at once, OTLP goes through the exit sender (ExitSafeSpanExporter),
 * including the batches still in flight.
 */
function exportNow(provider: Flushable): void {
  const state = getPreloadState();
  state.synchronousExport = true;
  void withUnrefTimers(() => provider.forceFlush({ timeoutMillis: 0 })).catch(() => undefined);
  for (const exporter of exitSafeExporters()) exporter.sendInFlightNow();
}

/**
 * Waits, within the exit deadline, for the exporters to take every ended span and for the exports
 * in flight to be answered. Timers are unref'd, so this never keeps the process alive by itself
 * (the caller holds the event loop for the bound). Resolves true when done, false at the deadline;
 * never rejects.
 */
function drain(provider: Flushable): Promise<boolean> {
  const remaining = (getPreloadState().exitDeadline ?? 0) - Date.now();
  if (remaining <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), remaining);
    timer.unref();
    let flushing: Promise<unknown>;
    try {
      flushing = withUnrefTimers(() => provider.forceFlush({ timeoutMillis: remaining })).catch((err: unknown) => logDebug('exit', `flush failed: ${(err as Error)?.message ?? err}`));
    } catch {
      flushing = Promise.resolve();
    }
    void flushing
      .then(() => Promise.all([...exitSafeExporters()].map((e) => e.settled())))
      .then(() => {
        clearTimeout(timer);
        resolve(true);
      });
  });
}

/**
 * Makes the end of the process lose no ended span, without changing how or when it ends beyond
 * `timeoutMs`:
 * - the event loop drains (the app's work is done; exports hold nothing, their sockets and timers
 *   are unref'd): on `beforeExit`, wait up to `timeoutMs` for the exporters, holding the loop with
 *   one timer; the process then ends by itself, with the app's exit code, after any async cleanup
 *   of the app's own (`process.exit()` is never called);
 * - `process.exit()` or the end after `beforeExit`: on `exit`, the final steps ({@link finalSteps});
 * - SIGTERM, SIGINT, SIGHUP with no listener of the app's: wait for the exporters (bounded), the
 *   final steps, then the signal is raised again with no listener, so the process ends by it
 *   (status 128+n); with a listener of the app's (signal-exit included), the app decides and the
 *   preload does nothing. The preload's listeners are invisible to the app (see signals.ts);
 * - `process.kill(process.pid, sig)` with no listener of the app's: the final steps, then the
 *   process ends at once by the signal, as untraced.
 * @param timeoutMs - the bound, ms (`TRACEHOOK_SHUTDOWN_TIMEOUT_MS`)
 */
export function installExitHandlers(provider: Flushable, timeoutMs: number): void {
  unrefExportTimers(provider);
  trackHookOpenSpans(provider);
  watchHookExporters(provider);
  const state = getPreloadState();
  const startEnding = () => (state.exitDeadline ??= Date.now() + timeoutMs);
  const runFinalSteps = (reason: string) => {
    startEnding();
    for (const [name, step] of finalSteps(provider, reason)) {
      try {
        step();
      } catch (err) {
        logDebug('exit', `${name}: ${(err as Error)?.message ?? err}`);
      }
    }
  };

  let draining = false;
  onProcessEvent('beforeExit', () => {
    // A drain that reached the bound is left pending: the process may end.
    if (draining) return;
    draining = true;
    startEnding();
    const hold = setTimeout(() => undefined, Math.max(0, state.exitDeadline! - Date.now()));
    void drain(provider).then((done) => {
      if (!done) return;
      clearTimeout(hold);
      draining = false;
      // The app's own beforeExit work may make more spans; they get a bound of their own.
      state.exitDeadline = undefined;
    });
  });

  onProcessEvent('exit', () => runFinalSteps('exit'));

  // Signals reach the main thread only; a worker thread's spans are flushed by its own exit.
  if (!isMainThread) return;
  const listeners = new Map<ExitSignal, () => void>();
  const stopListening = (signal: ExitSignal) => {
    const listener = listeners.get(signal);
    if (listener) removeHiddenSignalListener(signal, listener);
  };
  for (const signal of EXIT_SIGNALS) {
    let ending = false;
    const onSignal = () => {
      // A listener of the app's (or signal-exit's) decides; the exit path follows whatever it does.
      if (appSignalListeners(signal) > 0 || ending) return;
      ending = true;
      startEnding();
      const hold = setTimeout(() => undefined, Math.max(0, state.exitDeadline! - Date.now()));
      void drain(provider).then(() => {
        clearTimeout(hold);
        runFinalSteps(signal);
        stopListening(signal);
        process.kill(process.pid, signal);
      });
    };
    listeners.set(signal, onSignal);
    addHiddenListener(signal, onSignal);
  }
  patchSelfKill((signal) => {
    const listener = listeners.get(signal);
    if (!listener || !isListening(signal, listener)) return;
    runFinalSteps(`process.kill(${signal})`);
    stopListening(signal);
  });
}
