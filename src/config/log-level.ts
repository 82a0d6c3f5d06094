import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/**
 * The `OTEL_LOG_LEVEL` values, least to most verbose: the same names as `DiagLogLevel` of
 * `@opentelemetry/api`. A message of level L is printed when L's index is at most the configured one.
 * @see OpenTelemetry specification, "Environment Variable Specification", `OTEL_LOG_LEVEL`
 */
export const LOG_LEVELS = ['NONE', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'VERBOSE', 'ALL'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `OTEL_LOG_LEVEL`, upper-cased; default `WARN`, also taken, with one error, for any other value. */
export function readLogLevel(env: Env, errors: ConfigError[]): LogLevel {
  const value = readString(env, 'OTEL_LOG_LEVEL')?.toUpperCase();
  if (value === undefined) return 'WARN';
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  errors.push(fallbackError('OTEL_LOG_LEVEL', env.OTEL_LOG_LEVEL ?? '', `one of ${LOG_LEVELS.join(', ')} (case-insensitive); using WARN`));
  return 'WARN';
}
