import { ConfigError } from './config-error.js';

/**
 * Default of `TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS`, ms: long enough for a hook that imports the
 * OpenTelemetry SDK and an exporter on a loaded machine (≈ 0.5 s here), short enough that an app
 * whose hook hangs starts soon, untraced.
 */
export const DEFAULT_STARTUP_HOOK_TIMEOUT_MS = 3000;

/**
 * `TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS`: how long the startup hook (or the exporter import path of the
 * default hook) may take to settle before the app starts untraced; whole ms > 0. A bad value is
 * reported in `errors` (tracing goes on with the default).
 */
export function readStartupHookTimeoutMs(env: Record<string, string | undefined>, errors: ConfigError[]): number {
  const raw = env.TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS?.trim();
  if (!raw) return DEFAULT_STARTUP_HOOK_TIMEOUT_MS;
  const n = Number(raw);
  if (Number.isInteger(n) && n > 0) return n;
  const err = new ConfigError('TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS', raw, `a whole number of ms > 0; using ${DEFAULT_STARTUP_HOOK_TIMEOUT_MS}`);
  err.disablesTracing = false;
  errors.push(err);
  return DEFAULT_STARTUP_HOOK_TIMEOUT_MS;
}
