import { stateKey } from '../state-key.js';
/**
 * Per-thread counts of what happened to ended spans, kept on `globalThis` under `Symbol.for` so the
 * preload bundle and `@tracehook/register/api` (a second copy of this module) count into the same
 * object.
 */

/** Why spans were dropped; each span is counted under exactly one reason. */
export interface DroppedSpans {
  /** The queue was at its byte bound (`TRACEHOOK_MAX_QUEUE_BYTES`) when the span ended. */
  queueFull: number;
  /** The exporter reported the export as failed (backend down, refused, answered an error). */
  exportFailed: number;
  /** A span-file line could not be written whole (disk full, file too large, unwritable file). */
  writeFailed: number;
  /** Still queued or in an unfinished export when the exit flush reached `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`. */
  shutdownBound: number;
  /** The backend accepted the export but rejected these spans (OTLP partial success, `rejectedSpans`). */
  rejected: number;
}

/**
 * What {@link getTracingStats} returns: counts since the thread started, all in spans except
 * `queuedBytes`. `ended = exported + dropped (all reasons) + queued + exporting` at any moment;
 * after the exit flush, `queued` and `exporting` are 0.
 */
export interface TracingStats {
  /** Sampled spans that ended and reached tracehook's span processor. */
  ended: number;
  /** Spans the exporter accepted: written to the span file or acknowledged by the backend. */
  exported: number;
  /** Spans lost, by reason. */
  dropped: DroppedSpans;
  /** Spans waiting in the queue now. */
  queued: number;
  /** Estimated size of the queued spans now, bytes (the measure `TRACEHOOK_MAX_QUEUE_BYTES` bounds). */
  queuedBytes: number;
  /** The largest `queuedBytes` seen so far, bytes: how close the queue came to its bound. */
  queuedBytesPeak: number;
  /** Spans handed to the exporter whose export has not finished yet. */
  exporting: number;
  /**
   * Spans a startup hook's own span processors (the SDK's BatchSpanProcessor or SimpleSpanProcessor,
   * not tracehook's) still held when the process ended, that their exporter could not send: an
   * asynchronous exporter at `process.exit()`, or resource attributes still pending. Counted at exit
   * with one line; not part of `ended` and `dropped`, which count tracehook's span processor.
   */
  hookUnflushed: number;
}

const STATS_KEY = stateKey('stats');

type GlobalWithStats = typeof globalThis & { [STATS_KEY]?: TracingStats };

/** The live counters of this thread (mutated in place by the span processor and exporters). */
export function tracingStats(): TracingStats {
  const g = globalThis as GlobalWithStats;
  return (g[STATS_KEY] ??= {
    ended: 0,
    exported: 0,
    dropped: { queueFull: 0, exportFailed: 0, writeFailed: 0, shutdownBound: 0, rejected: 0 },
    queued: 0,
    queuedBytes: 0,
    queuedBytesPeak: 0,
    exporting: 0,
    hookUnflushed: 0,
  });
}

/**
 * Counts of the ended spans of this thread (the main thread or the calling worker thread) in
 * tracehook's default pipeline (span files, or OTLP through the default hook): how many ended, were
 * exported, are queued, and were dropped by reason. A snapshot: later spans do not change it.
 * Without the preload, or with a startup hook of your own that does not use tracehook's span
 * processor, every count is 0.
 * @returns `{ ended, exported, dropped: { queueFull, exportFailed, writeFailed, shutdownBound, rejected },
 *   queued, queuedBytes, queuedBytesPeak, exporting, hookUnflushed }`, counts in spans, `queuedBytes*` in bytes
 */
export function getTracingStats(): TracingStats {
  const s = tracingStats();
  return { ...s, dropped: { ...s.dropped } };
}

/** Total spans dropped, all reasons. */
export function droppedTotal(dropped: DroppedSpans = tracingStats().dropped): number {
  return dropped.queueFull + dropped.exportFailed + dropped.writeFailed + dropped.shutdownBound + dropped.rejected;
}

/** Reasons listed in the exit line only when some span was lost to them (the line's first four are always there). */
const LATER_REASONS: [keyof DroppedSpans, string][] = [['rejected', 'rejected by backend']];

/** The exit line's text when spans were lost, else undefined. */
export function lossSummary(stats: TracingStats = tracingStats()): string | undefined {
  const total = droppedTotal(stats.dropped);
  if (total === 0) return undefined;
  const d = stats.dropped;
  return (
    `${total} of ${stats.ended} ended spans were lost (queue full: ${d.queueFull}, export failed: ${d.exportFailed}, ` +
    `write failed: ${d.writeFailed}, shutdown bound reached: ${d.shutdownBound}` +
    LATER_REASONS.map(([key, name]) => (d[key] > 0 ? `, ${name}: ${d[key]}` : '')).join('') +
    `); ${stats.exported} exported`
  );
}

// A Symbol.for key (stateKey): the exporter and the processor may come from different copies of this module.
const SHUTDOWN_BOUND = stateKey('shutdownBoundError');

/**
 * An export failure that is the exit bound's doing (`TRACEHOOK_SHUTDOWN_TIMEOUT_MS` ran out before the
 * spans were sent), so its spans are counted as dropped at the shutdown bound, not as failed exports.
 */
export function shutdownBoundError(message: string): Error {
  return Object.assign(new Error(message), { [SHUTDOWN_BOUND]: true });
}

/** True for an error made by {@link shutdownBoundError}. */
export function isShutdownBoundError(error: unknown): boolean {
  return (error as { [SHUTDOWN_BOUND]?: boolean } | undefined)?.[SHUTDOWN_BOUND] === true;
}
