import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/**
 * A whole-number variable (`OTEL_BSP_*`, the `*_MS` time bounds): `defaultValue` when unset or
 * blank; a value that is not a whole number >= `min` takes `defaultValue` with one error naming
 * the variable, the value and what is accepted.
 * @param what - what the number counts, for the error text: `a whole number of ms`, `a whole number`
 */
export function readWholeNumber(env: Env, name: string, defaultValue: number, min: number, errors: ConfigError[], what = 'a whole number'): number {
  const raw = readString(env, name);
  if (raw === undefined) return defaultValue;
  const n = Number(raw);
  if (Number.isSafeInteger(n) && n >= min) return n;
  errors.push(fallbackError(name, raw, `${what} ${min === 0 ? '>= 0' : `> ${min - 1}`}; using ${defaultValue}`));
  return defaultValue;
}
