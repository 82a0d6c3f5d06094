import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';
import { readKeyValues } from './key-values.js';

/** What the resource of every span says about the service. */
export interface ServiceConfig {
  /** `OTEL_SERVICE_NAME`, if set. */
  serviceName?: string;
  /** `OTEL_RESOURCE_ATTRIBUTES` as key/value pairs (percent-decoded). */
  resourceAttributes: Record<string, string>;
}

/**
 * Reads {@link ServiceConfig}; a malformed `OTEL_RESOURCE_ATTRIBUTES` entry is skipped with one error.
 * @see OpenTelemetry specification, "Environment Variable Specification", `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`
 */
export function readServiceConfig(env: Env, errors: ConfigError[]): ServiceConfig {
  return { serviceName: readString(env, 'OTEL_SERVICE_NAME'), resourceAttributes: readKeyValues(env, 'OTEL_RESOURCE_ATTRIBUTES', errors) };
}
