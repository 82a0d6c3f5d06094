import { writeSync } from 'node:fs';
import { getConfig } from '../config/current.js';
import type { LogLevel } from '../config/log-level.js';
import { LOG_LEVELS } from '../config/log-level.js';
import { escapeControlChars } from './control-chars.js';
import { stateKey } from '../state-key.js';

/**
 * The one tracehook logger of a thread. Messages go to stderr prefixed with `[tracehook]` and the
 * component; the level is the configuration's `OTEL_LOG_LEVEL` (NONE, ERROR, WARN, INFO, DEBUG,
 * VERBOSE, ALL; default WARN). A condition that repeats is one line with a running count: printed the 1st, 10th,
 * 100th… time, and with its total at exit when it happened again since.
 *
 * Configuration errors are always printed (they are the user's only hint that tracing is off),
 * unless the level is NONE.
 */
const LOGGER_KEY = stateKey('logger');

interface Seen {
  component: string;
  message: string;
  count: number;
  /** The count the last printed line showed. */
  printed: number;
}

interface LoggerState {
  level: number;
  seen: Map<string, Seen>;
}

/**
 * Distinct problems kept apart by {@link warnOnce}; the ones past it share one entry. A message made of
 * per-request values (a span name, say) must cost neither memory nor a stderr line per request.
 */
export const MAX_DISTINCT_PROBLEMS = 20;
const OVERFLOW_KEY = '\u0000more';

function state(): LoggerState {
  const g = globalThis as typeof globalThis & { [LOGGER_KEY]?: LoggerState };
  if (!g[LOGGER_KEY]) {
    g[LOGGER_KEY] = { level: LOG_LEVELS.indexOf(getConfig().logLevel), seen: new Map() };
  }
  return g[LOGGER_KEY];
}

/**
 * Writes to file descriptor 2 directly, synchronously, never through `process.stderr`: a stream whose
 * reader has gone away (a pipe to `head`, a log shipper that died) emits EPIPE as an `'error'` event,
 * which, with no listener, ends an app that itself never writes to stderr. A write that fails here
 * throws, and the line is dropped. It also leaves `process.stderr` unmade until the app makes it.
 * Control characters are escaped (a backend's reason phrase, a span name in a message): only our
 * newlines and tabs reach the terminal.
 */
function write(level: LogLevel, component: string, message: string): void {
  if (state().level < LOG_LEVELS.indexOf(level)) return;
  try {
    const line = Buffer.from(`[tracehook] ${component}: ${escapeControlChars(message, true)}\n`);
    for (let at = 0; at < line.length;) {
      const n = writeSync(2, line, at);
      if (n <= 0) break;
      at += n;
    }
  } catch {
    // stderr closed or gone (EPIPE, EBADF), or full and non-blocking (EAGAIN): the app must not see it.
  }
}

/** Logs at ERROR. */
export function logError(component: string, message: string): void {
  write('ERROR', component, message);
}

/** Logs at WARN. */
export function logWarn(component: string, message: string): void {
  write('WARN', component, message);
}

/** Logs at INFO. */
export function logInfo(component: string, message: string): void {
  write('INFO', component, message);
}

/** Logs at DEBUG. */
export function logDebug(component: string, message: string): void {
  write('DEBUG', component, message);
}

/**
 * Logs `message` at WARN the first time `key` is seen, then again with the running count the 10th,
 * 100th, 1000th… time (the latest message text, so numbers in it are never hidden), and the total
 * at exit ({@link printProblemTotals}). Past {@link MAX_DISTINCT_PROBLEMS} keys, new keys are counted
 * together as one problem, printed the same way with the latest message.
 * @returns how many times `key` (or, past the bound, any new key) has been seen, this call included.
 */
export function warnOnce(component: string, key: string, message: string): number {
  const seen = state().seen;
  let entry = seen.get(key);
  if (!entry && seen.size >= MAX_DISTINCT_PROBLEMS) {
    key = OVERFLOW_KEY;
    message = `more than ${MAX_DISTINCT_PROBLEMS} kinds of problem, counted together from here; the latest: ${message}`;
    entry = seen.get(key);
  }
  if (!entry) seen.set(key, (entry = { component, message, count: 0, printed: 0 }));
  entry.component = component;
  entry.message = message;
  const n = ++entry.count;
  if (n === 1) write('WARN', component, message);
  else if (isPowerOfTen(n)) write('WARN', component, `${message} (${n} times so far)`);
  if (n === 1 || isPowerOfTen(n)) entry.printed = n;
  return n;
}

/**
 * What stays the same from one occurrence of a message to the next, for a {@link warnOnce} key: the text
 * without hex ids of 8 characters or more (OpenTelemetry's "Cannot execute the operation on ended Span
 * {traceId: …, spanId: …}" comes once per span an app touches after its end) and without counts and ports.
 */
export function problemOf(message: string): string {
  return message.replace(/[0-9a-f]{8,}/gi, 'H').replace(/\d+/g, 'N');
}

function isPowerOfTen(n: number): boolean {
  while (n >= 10 && n % 10 === 0) n /= 10;
  return n === 1;
}

/** At exit: one line per problem that happened again since its last printed line, with its total. */
export function printProblemTotals(): void {
  for (const entry of state().seen.values()) {
    if (entry.count > entry.printed) write('WARN', entry.component, `${entry.message} (${entry.count} times in all)`);
    entry.printed = entry.count;
  }
}
