import type { MethodCarrier } from './carrier-adapter.js';

/** An environment object: `process.env`, or the `env` you pass to `child_process.spawn`. */
export type EnvObject = Record<string, string | undefined>;

/**
 * A carrier over an environment object, for {@link injectContext} / {@link extractContext}.
 * Propagation keys map to environment variable names: `traceparent` → `TRACEPARENT`,
 * `tracestate` → `TRACESTATE`, `baggage` → `BAGGAGE` (upper case, any character outside
 * `[A-Z0-9_]` becomes `_`). Values are opaque strings.
 */
export interface EnvCarrier extends MethodCarrier {
  /** The object read and written; only it is ever touched. */
  readonly env: EnvObject;
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  delete(key: string): void;
  keys(): string[];
}

/**
 * Wraps `env` as a propagation carrier. Reads and writes only `env`: `process.env` is changed
 * only when it is the object passed.
 * @example
 * const env = { ...process.env };
 * injectContext(envCarrier(env));            // env.TRACEPARENT, env.TRACESTATE, env.BAGGAGE
 * spawn(process.execPath, ['child.js'], { env });
 * // in the child:
 * const parent = extractContext(envCarrier(process.env));
 * @see https://opentelemetry.io/docs/specs/otel/context/env-carriers/
 */
export function envCarrier(env: EnvObject): EnvCarrier {
  return {
    env,
    get: (key) => env[envVariableName(key)],
    set(key, value) {
      env[envVariableName(key)] = value;
    },
    delete(key) {
      delete env[envVariableName(key)];
    },
    keys: () => Object.keys(env),
  };
}

/**
 * The propagation fields an environment carries between processes (W3C Trace Context and Baggage),
 * as `TRACEPARENT`, `TRACESTATE` and `BAGGAGE`.
 * @see https://opentelemetry.io/docs/specs/otel/context/env-carriers/
 */
export const ENV_CARRIER_FIELDS = ['traceparent', 'tracestate', 'baggage'] as const;

/**
 * The {@link ENV_CARRIER_FIELDS} set in `env` as a plain carrier (`{ traceparent, tracestate?,
 * baggage? }`), or undefined when `TRACEPARENT` is not set. Reads only `env`.
 */
export function carrierFromEnv(env: EnvObject): Record<string, string> | undefined {
  const carrier = envCarrier(env);
  if (!carrier.get('traceparent')) return undefined;
  const fields: Record<string, string> = {};
  for (const field of ENV_CARRIER_FIELDS) {
    const value = carrier.get(field);
    if (value) fields[field] = value;
  }
  return fields;
}

/** The environment variable name of a propagation key: `traceparent` → `TRACEPARENT`. */
export function envVariableName(key: string): string {
  return key.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}
