import { logWarn, printProblemTotals } from './logger.js';
import { lossSummary, tracingStats } from './tracing-stats.js';

const INSTALLED_KEY = Symbol.for('tracehook.lossReport');

type GlobalWithReport = typeof globalThis & { [INSTALLED_KEY]?: { closed: boolean } };

/**
 * Registers the `exit` listener that closes the books of this thread ({@link closeBooks}). Call it
 * after registering the listener that does the final flush, so it runs after it. Once per thread.
 */
export function reportLossesAtExit(): void {
  const g = globalThis as GlobalWithReport;
  if (g[INSTALLED_KEY]) return;
  g[INSTALLED_KEY] = { closed: false };
  process.on('exit', closeBooks);
}

/**
 * Closes the books of this thread, once, after the final flush: spans still queued or in an
 * unfinished export are counted as dropped at the shutdown bound, each repeated problem prints its
 * total, and when any span was lost, one line gives the exact totals by reason. The `exit` listener
 * calls it; a process about to end by a re-raised signal emits no `exit`, so that path calls it
 * itself, just before the signal.
 */
export function closeBooks(): void {
  const g = globalThis as GlobalWithReport;
  const state = (g[INSTALLED_KEY] ??= { closed: false });
  if (state.closed) return;
  state.closed = true;
  const stats = tracingStats();
  stats.dropped.shutdownBound += stats.queued + stats.exporting;
  stats.queued = 0;
  stats.queuedBytes = 0;
  stats.exporting = 0;
  printProblemTotals();
  const summary = lossSummary(stats);
  if (summary) logWarn('losses', summary);
}
