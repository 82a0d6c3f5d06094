import { readChoice } from './choice.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';

/** Which tracer makes tracehook's spans: `lean` (the default) or the SDK's own (`stock`). */
export type TracerKind = 'lean' | 'stock';

/**
 * `TRACEHOOK_TRACER`: `lean` (default) makes spans with tracehook's lean span (ids from a pooled
 * CSPRNG buffer, attributes validated once); `stock` uses the OpenTelemetry SDK's Tracer, span and
 * `RandomIdGenerator` unchanged. Either way span processors and exporters receive real SDK
 * `ReadableSpan`s. Anything else is one error line and `lean`.
 */
export function readTracerKind(env: Env, errors: ConfigError[]): TracerKind {
  return readChoice<TracerKind>(env, 'TRACEHOOK_TRACER', ['lean', 'stock'], errors);
}
