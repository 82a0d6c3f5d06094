import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gib: 1024 ** 3 };

/**
 * A size variable (`TRACEHOOK_MAX_QUEUE_BYTES`, `TRACEHOOK_SPANS_MAX_BYTES`): `65536`, `64KiB`, `64MiB`,
 * `1GiB` (`K`, `M`, `G` and `B` too, case-insensitive; units are powers of 1024), in bytes.
 * `defaultBytes` when unset or blank; a value not of that form takes `defaultBytes` with one error naming the
 * variable, the value and what is accepted.
 * @param defaultLabel - the default as the error text gives it: `16MiB`
 */
export function readBytes(env: Env, name: string, defaultBytes: number, defaultLabel: string, errors: ConfigError[]): number {
  const raw = readString(env, name);
  if (raw === undefined) return defaultBytes;
  const m = /^(\d+)\s*([a-z]*)$/i.exec(raw);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  if (m && unit !== undefined) return Number(m[1]) * unit;
  errors.push(fallbackError(name, raw, `bytes as a whole number, optionally with KiB, MiB or GiB; using ${defaultLabel}`));
  return defaultBytes;
}
