import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/**
 * A variable that takes one of a few words (`TRACEHOOK_HTTP_INSTRUMENTATION`, `TRACEHOOK_ESM_LOADER`),
 * case-insensitive. The first of `choices` is the default: taken when unset or blank, and, with one
 * error such as `` expected `fast` or `stock`; using fast ``, for any other value.
 */
export function readChoice<C extends string>(env: Env, name: string, choices: readonly [C, ...C[]], errors: ConfigError[]): C {
  const value = readString(env, name)?.toLowerCase();
  if (value === undefined) return choices[0];
  if ((choices as readonly string[]).includes(value)) return value as C;
  const listed = choices.map((c) => `\`${c}\``);
  errors.push(fallbackError(name, value, `${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}; using ${choices[0]}`));
  return choices[0];
}
