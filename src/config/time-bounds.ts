import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readWholeNumber } from './whole-number.js';

/**
 * Default of `TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS`, ms: long enough for a hook that imports the
 * OpenTelemetry SDK and an exporter on a loaded machine (bench: startup, spawn → first HTTP 200, otel row), short enough that an app
 * whose hook hangs starts soon, untraced.
 */
export const DEFAULT_STARTUP_HOOK_TIMEOUT_MS = 3000;

/**
 * Default of `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`, ms: the exit budget is 0.5 s after the app's
 * last line even with a backend that refuses (the OTLP exporter retries until the bound) or never
 * answers; a local Collector takes a few ms per batch, a remote vendor endpoint can need more.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 400;

/** The time bounds of startup and exit, ms. */
export interface TimeBounds {
  /** `TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS`: how long the startup hook (or exporter import path) may take to settle; whole ms > 0. */
  startupHookTimeoutMs: number;
  /** `TRACEHOOK_SHUTDOWN_TIMEOUT_MS`: what ending the process may cost at most; whole ms >= 0. */
  shutdownTimeoutMs: number;
}

/** Reads {@link TimeBounds}; a bad value is reported in `errors` and its default kept (tracing goes on). */
export function readTimeBounds(env: Env, errors: ConfigError[]): TimeBounds {
  return {
    startupHookTimeoutMs: readWholeNumber(env, 'TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS', DEFAULT_STARTUP_HOOK_TIMEOUT_MS, 1, errors, 'a whole number of ms'),
    shutdownTimeoutMs: readWholeNumber(env, 'TRACEHOOK_SHUTDOWN_TIMEOUT_MS', DEFAULT_SHUTDOWN_TIMEOUT_MS, 0, errors, 'a whole number of ms'),
  };
}
