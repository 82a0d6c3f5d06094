import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readList } from './env.js';

/** The `OTEL_PROPAGATORS` values tracehook provides: W3C Trace Context, W3C Baggage, or none. */
export const PROPAGATOR_NAMES = ['tracecontext', 'baggage', 'none'] as const;

/**
 * `OTEL_PROPAGATORS`, lower-cased; default `['tracecontext', 'baggage']`. Unknown names are left out
 * with one error (tracing goes on with the rest).
 * @see OpenTelemetry specification, "Environment Variable Specification", `OTEL_PROPAGATORS`
 */
export function readPropagators(env: Env, errors: ConfigError[]): string[] {
  const names = readList(env, 'OTEL_PROPAGATORS');
  if (names.length === 0) return ['tracecontext', 'baggage'];
  const known = (name: string) => (PROPAGATOR_NAMES as readonly string[]).includes(name);
  const unknown = names.filter((name) => !known(name));
  if (unknown.length > 0) {
    errors.push(fallbackError('OTEL_PROPAGATORS', env.OTEL_PROPAGATORS ?? '', `a list of ${PROPAGATOR_NAMES.join(', ')}; ignoring ${unknown.join(', ')}`));
  }
  return names.filter(known);
}
