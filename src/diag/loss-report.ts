import { logWarn, printProblemTotals } from './logger.js';
import { lossSummary, tracingStats } from './tracing-stats.js';

const INSTALLED_KEY = Symbol.for('tracehook.lossReport');

/**
 * Registers the `exit` listener that closes the books of this thread: spans the final flush left
 * queued or in an unfinished export are counted as dropped at the shutdown bound, each repeated
 * problem prints its total, and when any span was lost, one line gives the exact totals by reason.
 * Call it after the listener that does the final flush, so it runs after it. Once per thread.
 */
export function reportLossesAtExit(): void {
  const g = globalThis as typeof globalThis & { [INSTALLED_KEY]?: true };
  if (g[INSTALLED_KEY]) return;
  g[INSTALLED_KEY] = true;
  process.on('exit', () => {
    const stats = tracingStats();
    stats.dropped.shutdownBound += stats.queued + stats.exporting;
    stats.queued = 0;
    stats.queuedBytes = 0;
    stats.exporting = 0;
    printProblemTotals();
    const summary = lossSummary(stats);
    if (summary) logWarn('losses', summary);
  });
}
