import { ConfigError } from './config-error.js';

/** Who encodes OTLP requests (span files, OTLP/HTTP JSON and protobuf). */
export type OtlpEncoder = 'direct' | 'stock';

/**
 * Reads `TRACEHOOK_OTLP_ENCODER`: `direct` (default) encodes OTLP/JSON and OTLP/protobuf straight
 * from the spans; `stock` uses @opentelemetry/otlp-transformer's serializers. Both give the same
 * bytes. Case-insensitive; anything else adds an error and falls back to `direct`.
 */
export function readOtlpEncoder(env: Record<string, string | undefined>, errors: ConfigError[]): OtlpEncoder {
  const value = env.TRACEHOOK_OTLP_ENCODER?.trim().toLowerCase();
  if (!value || value === 'direct') return 'direct';
  if (value === 'stock') return 'stock';
  const err = new ConfigError('TRACEHOOK_OTLP_ENCODER', env.TRACEHOOK_OTLP_ENCODER ?? '', '`direct` or `stock`; using direct');
  err.disablesTracing = false;
  errors.push(err);
  return 'direct';
}
