import { trace } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';

/** Instrumentation scope name of every span the API makes. */
export const TRACER_NAME = '@tracehook/register';

/** The package version, read once from the package's package.json (dist/context/ → ../../). */
export const TRACER_VERSION: string | undefined = readVersion();

function readVersion(): string | undefined {
  try {
    return (require('../../package.json') as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * The API's tracer, looked up per use rather than cached: a provider registered (or replaced)
 * after this module loaded is still the one that records.
 */
export function getApiTracer(): Tracer {
  return trace.getTracer(TRACER_NAME, TRACER_VERSION);
}
