import { logWarn, printProblemTotals } from './logger.js';
import { lossSummary, tracingStats } from './tracing-stats.js';
import { stateKey } from '../state-key.js';

// Once per thread, shared by every copy of this module.
const INSTALLED_KEY = stateKey('lossReport');

type GlobalWithReport = typeof globalThis & { [INSTALLED_KEY]?: { closed: boolean } };

/**
 * Closes the books of this thread, once, after the final flush: spans still queued or in an
 * unfinished export are counted as dropped at the shutdown bound, each repeated problem prints its
 * total, and when any span was lost, one line gives the exact totals by reason. The last of the
 * preload's exit steps (`exit`, a re-raised signal, the app signalling itself).
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
