import { readChoice } from './choice.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readList } from './env.js';
import { DEFAULT_INSTRUMENTATIONS } from './instrumentation-defaults.js';

/** Which instrumentations run, and how they are loaded. */
export interface InstrumentationSelection {
  /** Instrumentation names (`http`, `grpc`, `express`, …) after `OTEL_NODE_ENABLED/DISABLED_INSTRUMENTATIONS`, without duplicates. */
  instrumentations: string[];
  /** `TRACEHOOK_HTTP_INSTRUMENTATION`: who makes HTTP SERVER spans; default `fast`. */
  httpInstrumentation: 'fast' | 'stock';
  /**
   * `TRACEHOOK_ESM_LOADER`: register import-in-the-middle's ESM loader hook. `auto` (default): only
   * when an instrumentation outside the default set is enabled.
   */
  esmLoader: 'auto' | 'true' | 'false';
}

/**
 * Reads {@link InstrumentationSelection}. Names are not checked here: one that cannot be loaded is
 * reported when the preload loads the instrumentations. A bad `TRACEHOOK_HTTP_INSTRUMENTATION` or
 * `TRACEHOOK_ESM_LOADER` falls back to its default with one error.
 */
export function readInstrumentationSelection(env: Env, errors: ConfigError[]): InstrumentationSelection {
  const enabled = readList(env, 'OTEL_NODE_ENABLED_INSTRUMENTATIONS');
  const disabled = new Set(readList(env, 'OTEL_NODE_DISABLED_INSTRUMENTATIONS'));
  const instrumentations = (enabled.length > 0 ? enabled : [...DEFAULT_INSTRUMENTATIONS]).filter((n) => !disabled.has(n));
  return {
    instrumentations: [...new Set(instrumentations)],
    httpInstrumentation: readChoice(env, 'TRACEHOOK_HTTP_INSTRUMENTATION', ['fast', 'stock'], errors),
    esmLoader: readChoice(env, 'TRACEHOOK_ESM_LOADER', ['auto', 'true', 'false'], errors),
  };
}

/**
 * Whether the ESM entry registers import-in-the-middle's loader hook: the default instrumentations
 * need none (node:http is patched as it loads, before an importing module's body runs; fetch reports through diagnostics
 * channels, their other targets are CommonJS packages, which reach require-in-the-middle through
 * the ESM-CJS bridge when imported from ESM); others may target ES-module-only packages.
 */
export function wantsEsmLoader(config: Pick<InstrumentationSelection, 'esmLoader' | 'instrumentations'>): boolean {
  if (config.esmLoader !== 'auto') return config.esmLoader === 'true';
  return config.instrumentations.some((name) => !(DEFAULT_INSTRUMENTATIONS as readonly string[]).includes(name));
}
