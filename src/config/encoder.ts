import { readChoice } from './choice.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';

/** Who encodes OTLP requests (span files, OTLP/HTTP JSON and protobuf). */
export type OtlpEncoder = 'direct' | 'stock';

/**
 * Reads `TRACEHOOK_OTLP_ENCODER`: `direct` (default) encodes OTLP/JSON and OTLP/protobuf straight
 * from the spans; `stock` uses @opentelemetry/otlp-transformer's serializers. Both give the same
 * bytes. Case-insensitive; anything else adds an error and falls back to `direct`.
 */
export function readOtlpEncoder(env: Env, errors: ConfigError[]): OtlpEncoder {
  return readChoice<OtlpEncoder>(env, 'TRACEHOOK_OTLP_ENCODER', ['direct', 'stock'], errors);
}
