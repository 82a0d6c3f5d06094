/**
 * The one tracehook logger of a thread. Messages go to stderr prefixed with `[tracehook]` and the
 * component; the level comes from `OTEL_LOG_LEVEL` (NONE, ERROR, WARN, INFO, DEBUG, VERBOSE, ALL;
 * default WARN). A condition that repeats is logged once, then counted.
 *
 * Configuration errors are always printed (they are the user's only hint that tracing is off),
 * unless the level is NONE.
 */
const LEVELS = { NONE: 0, ERROR: 1, WARN: 2, INFO: 3, DEBUG: 4, VERBOSE: 5, ALL: 6 } as const;
type LevelName = keyof typeof LEVELS;

const LOGGER_KEY = Symbol.for('tracehook.logger');

interface LoggerState {
  level: number;
  seen: Map<string, number>;
}

function state(): LoggerState {
  const g = globalThis as typeof globalThis & { [LOGGER_KEY]?: LoggerState };
  if (!g[LOGGER_KEY]) {
    const name = (process.env.OTEL_LOG_LEVEL ?? 'WARN').toUpperCase() as LevelName;
    g[LOGGER_KEY] = { level: LEVELS[name] ?? LEVELS.WARN, seen: new Map() };
  }
  return g[LOGGER_KEY];
}

function write(level: LevelName, component: string, message: string): void {
  if (state().level < LEVELS[level]) return;
  try {
    process.stderr.write(`[tracehook] ${component}: ${message}\n`);
  } catch {
    // stderr closed: nothing useful left to do, and the app must not see it.
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
 * Logs `message` at WARN the first time `key` is seen; later calls only count.
 * @returns how many times `key` has been seen, this call included.
 */
export function warnOnce(component: string, key: string, message: string): number {
  const seen = state().seen;
  const n = (seen.get(key) ?? 0) + 1;
  seen.set(key, n);
  if (n === 1) write('WARN', component, message);
  return n;
}
