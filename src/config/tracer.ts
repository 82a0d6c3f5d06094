import { ConfigError } from './config-error.js';

/** Which tracer makes tracehook's spans: `lean` ({@link TracehookConfig}'s default) or the SDK's own (`stock`). */
export type TracerKind = 'lean' | 'stock';

/**
 * `TRACEHOOK_TRACER`: `lean` (default) makes spans with tracehook's lean span (ids from a pooled
 * CSPRNG buffer, attributes validated once); `stock` uses the OpenTelemetry SDK's Tracer, span and
 * `RandomIdGenerator` unchanged. Either way span processors and exporters receive real SDK
 * `ReadableSpan`s. Anything else is one error line and `lean`.
 */
export function readTracerKind(env: Record<string, string | undefined>, errors: ConfigError[]): TracerKind {
  const raw = env.TRACEHOOK_TRACER?.trim();
  if (!raw) return 'lean';
  const value = raw.toLowerCase();
  if (value === 'lean' || value === 'stock') return value;
  const err = new ConfigError('TRACEHOOK_TRACER', raw, '`lean` or `stock`; using lean');
  err.disablesTracing = false;
  errors.push(err);
  return 'lean';
}
