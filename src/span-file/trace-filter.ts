/**
 * The trace filters of `tracehook view` and of the browser page. The functions here are
 * self-contained (no imports, no helpers outside this file's exported functions) because the page
 * gets their compiled text inlined: one implementation for the terminal and the browser.
 */

/** What the filters read of a trace. */
export interface FilterableTrace {
  /** 32 lowercase hex chars. */
  traceId: string;
  /** Earliest span start, milliseconds since the Unix epoch (fractional). */
  startMs: number;
  /** From the earliest start to the latest end, in milliseconds. */
  durationMs: number;
  /** Distinct `service.name` values. */
  services: string[];
  /** Distinct span names. */
  names: string[];
  /** Spans with status ERROR. */
  errorCount: number;
}

/** A trace matches when every criterion set matches (an unset criterion matches all). */
export interface TraceFilter {
  /** The trace has a span of one of these services (exact `service.name`). */
  services?: string[];
  /** The trace has a span with status ERROR. */
  errors?: boolean;
  /** Trace duration ≥ this, in ms. */
  minDurationMs?: number;
  /** Trace start ≥ this, ms since the Unix epoch. */
  sinceMs?: number;
  /** Trace start ≤ this, ms since the Unix epoch. */
  untilMs?: number;
  /** Lowercase hex prefix of the trace id. */
  tracePrefix?: string;
  /** A glob (`*` any run of characters, `?` one character) one span name must match whole. */
  name?: string;
}

/** Whether `trace` passes `filter`. */
export function matchesTraceFilter(trace: FilterableTrace, filter: TraceFilter): boolean {
  if (filter.tracePrefix && !trace.traceId.startsWith(filter.tracePrefix)) return false;
  if (filter.errors && trace.errorCount === 0) return false;
  if (filter.minDurationMs !== undefined && trace.durationMs < filter.minDurationMs) return false;
  if (filter.sinceMs !== undefined && trace.startMs < filter.sinceMs) return false;
  if (filter.untilMs !== undefined && trace.startMs > filter.untilMs) return false;
  if (filter.services && filter.services.length > 0 && !filter.services.some((s) => trace.services.includes(s))) return false;
  if (filter.name) {
    const pattern = globToRegExp(filter.name);
    if (!trace.names.some((n) => pattern.test(n))) return false;
  }
  return true;
}

/** A glob as an anchored RegExp: `*` any run of characters, `?` one, everything else literal. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/**
 * Parses a duration: a number with an optional unit `ns`, `us`/`µs`, `ms` (the default), `s`, `m`,
 * `h`, `d`. @returns milliseconds, or `undefined` when `text` is not a duration
 */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|µs|ms|s|m|min|h|d)?\s*$/.exec(text);
  if (!m) return undefined;
  const factor: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, min: 6e4, h: 3.6e6, d: 8.64e7 };
  return Number(m[1]) * factor[m[2] ?? 'ms'];
}

/**
 * Parses a point in time: an ISO 8601 date or date-time (`2026-11-23`, `2026-11-23T19:00:00Z`),
 * or a duration with a unit, meaning that long before `nowMs` (`15m` = 15 minutes ago).
 * @returns milliseconds since the Unix epoch, or `undefined` when `text` is neither
 */
export function parseTimeMs(text: string, nowMs: number): number | undefined {
  if (/^\s*[\d.]+\s*[a-zµ]+\s*$/.test(text)) {
    const ago = parseDurationMs(text);
    return ago === undefined ? undefined : nowMs - ago;
  }
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}
