import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/**
 * `key1=value1,key2=value2`, values percent-decoded. A bad entry is skipped with an error that names
 * the variable and the entry's position but never its text: these variables carry API keys.
 * @see OpenTelemetry specification, Resource SDK, "Specifying resource information via an environment variable";
 *   OTLP Exporter, `OTEL_EXPORTER_OTLP_HEADERS`
 */
export function readKeyValues(env: Env, variable: string, errors: ConfigError[]): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = readString(env, variable);
  if (!raw) return out;
  raw.split(',').forEach((pair, i) => {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq).trim();
    if (eq < 0 || !key) {
      const problem = eq < 0 ? "has no '='" : 'has an empty key';
      errors.push(fallbackError(variable, undefined, '`key=value` entries separated by commas; ignoring that entry', `entry ${i + 1} ${problem}`));
      return;
    }
    try {
      out[key] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      out[key] = pair.slice(eq + 1).trim();
    }
  });
  return out;
}
