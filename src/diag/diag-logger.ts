import { inspect } from 'node:util';
import type { DiagLogger } from '@opentelemetry/api';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import type { LogLevel } from '../config/log-level.js';
import { logDebug, problemOf, warnOnce } from './logger.js';

/** Longest argument text on a WARN line: a backend's garbage response must not flood stderr. */
const SHORT_ARG_CHARS = 200;

/**
 * Routes OpenTelemetry's `diag` messages (exporter failures, bad configuration) into the tracehook
 * logger at `level`, the configuration's `OTEL_LOG_LEVEL` (`DiagLogLevel` has the same names). At WARN and ERROR each distinct message is one line
 * with a running count (see warnOnce), its arguments shortened (an error by its message, no stack);
 * from DEBUG on, every message is printed in full with its arguments.
 */
export function installDiagLogger(level: LogLevel): void {
  const logLevel = DiagLogLevel[level];
  const full = logLevel >= DiagLogLevel.DEBUG;
  const line = (message: string, args: unknown[]) => (full ? formatFull(message, args) : formatShort(message, args));
  const counted = (message: string, ...args: unknown[]) => {
    const text = line(message, args);
    if (full) logDebug('otel', text);
    else warnOnce('otel', `otel:${problemOf(message)}`, text);
  };
  const logger: DiagLogger = {
    error: counted,
    warn: counted,
    info: (message, ...args) => logDebug('otel', line(message, args)),
    debug: (message, ...args) => logDebug('otel', line(message, args)),
    verbose: (message, ...args) => logDebug('otel', line(message, args)),
  };
  diag.setLogger(logger, { logLevel, suppressOverrideMessage: true });
}

/**
 * The message and its arguments on one line: errors by name and message (no stack), strings cut
 * short, other values (a response body, a request) left out: they are for OTEL_LOG_LEVEL=debug.
 */
function formatShort(message: string, args: unknown[]): string {
  const parts = args.flatMap((arg) => {
    const text = arg instanceof Error ? `${arg.name}: ${arg.message}` : typeof arg === 'string' ? arg : undefined;
    if (text === undefined) return [];
    return [text.length > SHORT_ARG_CHARS ? `${text.slice(0, SHORT_ARG_CHARS)}…` : text];
  });
  return [message, ...parts].join(' ').replace(/\s*\n\s*/g, ' ');
}

/** The message and every argument in full (errors with their stack), for OTEL_LOG_LEVEL=debug. */
function formatFull(message: string, args: unknown[]): string {
  return [message, ...args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { depth: 6, breakLength: Infinity })))].join(' ');
}
