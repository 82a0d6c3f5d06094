/**
 * A configuration value tracehook cannot use. The message always names the variable, the value
 * and what is accepted, so one stderr line is enough to fix it.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  /**
   * True (the default) when the preload cannot trace with this error and the app runs untraced;
   * false when a documented fallback applies (the fallback is then part of `accepted`).
   */
  disablesTracing = true;

  /**
   * @param variable - the environment variable or CLI flag, e.g. `TRACEHOOK_SAMPLING_RATIO`
   * @param value - the value as given (shown quoted); undefined for a value that may be secret
   *   (headers), which is then never shown
   * @param accepted - what would have been accepted, e.g. `a number in [0, 1]`
   * @param detail - optional cause, e.g. the loader's error message
   */
  constructor(
    readonly variable: string,
    readonly value: string | undefined,
    readonly accepted: string,
    detail?: string,
  ) {
    const shown = value === undefined ? variable : `${variable}=${JSON.stringify(value)}`;
    super(`${shown} is not valid: expected ${accepted}${detail ? ` (${detail})` : ''}`);
  }
}

/**
 * A {@link ConfigError} whose variable has a documented fallback (named at the end of `accepted`,
 * e.g. `…; using 400`), so tracing goes on.
 */
export function fallbackError(variable: string, value: string | undefined, accepted: string, detail?: string): ConfigError {
  const err = new ConfigError(variable, value, accepted, detail);
  err.disablesTracing = false;
  return err;
}

/**
 * True for a ConfigError from any copy of this package: the preload runs from a bundle while a
 * startup hook may use `@tracehook/register/api`, so `instanceof` would miss the other copy's errors
 * (docs/architecture.md, "Invariants").
 */
export function isConfigError(err: unknown): err is ConfigError {
  return (err as Error | undefined)?.name === 'ConfigError' && typeof (err as ConfigError).variable === 'string';
}
