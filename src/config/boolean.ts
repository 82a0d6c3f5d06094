import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';

/**
 * A boolean variable per the OpenTelemetry specification's rules: `true` or `false`, case-insensitive
 * (surrounding spaces ignored); unset or empty takes `defaultValue`. Any other value (`yes`, `1`, `on`)
 * takes `defaultValue` too, and adds one error naming the variable, so a typo never passes silently.
 * @see OpenTelemetry specification, "Environment Variable Specification", Boolean value
 */
export function readBoolean(env: Env, name: string, defaultValue: boolean, errors: ConfigError[]): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (!value) return defaultValue;
  if (value === 'true') return true;
  if (value === 'false') return false;
  errors.push(fallbackError(name, env[name] ?? '', `\`true\` or \`false\` (case-insensitive); using ${defaultValue}`));
  return defaultValue;
}
