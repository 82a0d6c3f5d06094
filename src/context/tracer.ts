import { trace } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import { PACKAGE_VERSION } from '../state-key.js';

/** Instrumentation scope name of every span the API makes. */
export const TRACER_NAME = '@tracehook/register';

/**
 * The package version (package.json's, written into the build by scripts/post-build.mjs): a constant, where reading
 * package.json kept its whole parsed object in every process and worker thread.
 */
export const TRACER_VERSION: string | undefined = PACKAGE_VERSION;

/**
 * The API's tracer, looked up per use rather than cached: a provider registered (or replaced)
 * after this module loaded is still the one that records.
 */
export function getApiTracer(): Tracer {
  return trace.getTracer(TRACER_NAME, TRACER_VERSION);
}
