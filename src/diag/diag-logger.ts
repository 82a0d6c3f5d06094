import type { DiagLogger } from '@opentelemetry/api';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import { logDebug, warnOnce } from './logger.js';

const LEVELS: Record<string, DiagLogLevel> = {
  NONE: DiagLogLevel.NONE,
  ERROR: DiagLogLevel.ERROR,
  WARN: DiagLogLevel.WARN,
  INFO: DiagLogLevel.INFO,
  DEBUG: DiagLogLevel.DEBUG,
  VERBOSE: DiagLogLevel.VERBOSE,
  ALL: DiagLogLevel.ALL,
};

/**
 * Routes OpenTelemetry's `diag` messages (exporter failures, dropped spans) into the tracehook
 * logger at `OTEL_LOG_LEVEL` (default WARN). Errors and warnings are logged once per message text
 * and counted after that, so a backend that is down does not flood the app's stderr.
 */
export function installDiagLogger(level = process.env.OTEL_LOG_LEVEL): void {
  // Counts and ports vary from one occurrence to the next ("Dropped 12 spans…"): dedupe without digits.
  const once = (message: string) => warnOnce('otel', message.replace(/\d+/g, 'N'), message);
  const logger: DiagLogger = {
    error: (message) => once(message),
    warn: (message) => once(message),
    info: (message) => logDebug('otel', message),
    debug: (message) => logDebug('otel', message),
    verbose: (message) => logDebug('otel', message),
  };
  diag.setLogger(logger, { logLevel: LEVELS[(level ?? 'WARN').toUpperCase()] ?? DiagLogLevel.WARN, suppressOverrideMessage: true });
}
