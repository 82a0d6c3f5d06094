import { ConfigError } from './config-error.js';

/**
 * A boolean variable per the OpenTelemetry specification's rules: `true` or `false`, case-insensitive
 * (surrounding spaces ignored); unset or empty takes `defaultValue`. Any other value (`yes`, `1`, `on`)
 * takes `defaultValue` too, and adds one error naming the variable, so a typo never passes silently.
 * @see OpenTelemetry specification, "Environment Variable Specification", Boolean value
 */
export function readBoolean(env: Record<string, string | undefined>, name: string, defaultValue: boolean, errors: ConfigError[]): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (!value) return defaultValue;
  if (value === 'true') return true;
  if (value === 'false') return false;
  const err = new ConfigError(name, env[name] ?? '', `\`true\` or \`false\` (case-insensitive); using ${defaultValue}`);
  err.disablesTracing = false;
  errors.push(err);
  return defaultValue;
}

/** The cheap test of the disable switches, before anything is loaded: `true`, case-insensitive. */
export function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
