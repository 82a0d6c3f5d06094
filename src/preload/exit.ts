import { isMainThread } from 'node:worker_threads';
import { closeBooks, reportLossesAtExit } from '../diag/loss-report.js';
import { logDebug } from '../diag/logger.js';
import { getPreloadState } from '../state.js';

/** What exit handling needs of a TracerProvider (BasicTracerProvider has it). */
export interface Flushable {
  forceFlush(): Promise<void>;
}

/** The signals whose default action is to end the process and after which spans are flushed. */
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Flushes `provider`, resolving when it is done or after `timeoutMs`, whichever comes first. The
 * timer is unref'd: it bounds the wait but never keeps the process alive. Never rejects.
 * @returns true when the flush finished (or failed) within the bound, false on time-out
 */
export function boundedFlush(provider: Flushable, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
    let flushing: Promise<void>;
    try {
      flushing = provider.forceFlush();
    } catch {
      flushing = Promise.resolve();
    }
    flushing.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      (err: unknown) => {
        logDebug('exit', `flush failed: ${(err as Error)?.message ?? err}`);
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

/**
 * Makes the end of the process lose no ended span, without changing how the process ends:
 * - the event loop drains: flush on `beforeExit`; if the exporter is still busy after `timeoutMs`
 *   the process exits with the exit code it was going to have;
 * - `process.exit()` or the end after `beforeExit`: on `exit`, the remaining spans are exported
 *   synchronously (span files and console write; OTLP/HTTP hands them to a sender process, see
 *   ExitSafeSpanExporter, bounded by `timeoutMs`);
 * - SIGTERM / SIGINT with no handler of the app's: flush (bounded), then the signal is raised again
 *   with no listener left, so the process ends by that signal (status 128+n) as it would have;
 *   with a handler of the app's, the app's handler decides and nothing else changes.
 * @param timeoutMs - the bound on each flush, ms (`TRACEHOOK_SHUTDOWN_TIMEOUT_MS`)
 */
export function installExitHandlers(provider: Flushable, timeoutMs: number): void {
  let flushing = false;
  process.on('beforeExit', () => {
    if (flushing) return;
    flushing = true;
    void boundedFlush(provider, timeoutMs).then((done) => {
      flushing = false;
      // An exporter still holding a socket past the bound (a backend that never answers) would
      // keep the process alive: end it as the drained loop would have, with its exit code.
      if (!done) process.exit();
    });
  });

  process.on('exit', () => {
    getPreloadState().synchronousExport = true;
    try {
      void provider.forceFlush().catch(() => undefined);
    } catch {
      // The process is ending: a failed last flush has nowhere to go.
    }
  });
  reportLossesAtExit();

  // Signals reach the main thread only; a worker thread's spans are flushed by its own exit.
  if (!isMainThread) return;
  for (const signal of SIGNALS) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) {
        // The app handles this signal and decides; get the spans out meanwhile.
        void boundedFlush(provider, timeoutMs);
        return;
      }
      void boundedFlush(provider, timeoutMs).then(() => {
        process.removeListener(signal, onSignal);
        closeBooks();
        process.kill(process.pid, signal);
      });
    };
    process.on(signal, onSignal);
  }
}
