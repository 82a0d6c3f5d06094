import { ConfigError, fallbackError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/** The `OTEL_TRACES_SAMPLER` values the specification defines for the SDK. */
export const SAMPLER_NAMES = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

/** One of {@link SAMPLER_NAMES}. */
export type SamplerName = (typeof SAMPLER_NAMES)[number];

/** How the default hook samples. */
export interface SamplingConfig {
  /** `TRACEHOOK_SAMPLING_RATIO` in [0, 1] (Ray Serve's `sampling_ratio`); undefined when not set. */
  samplingRatio?: number;
  /**
   * `OTEL_TRACES_SAMPLER` (lower-cased) and, for the ratio samplers, `OTEL_TRACES_SAMPLER_ARG` as a
   * number in [0, 1] (default 1.0); undefined when not set.
   */
  sampler?: { name: SamplerName; ratio: number };
}

/**
 * Reads {@link SamplingConfig}. A bad `TRACEHOOK_SAMPLING_RATIO` or `OTEL_TRACES_SAMPLER` is an error
 * that leaves the app untraced (sampling is not guessed); a bad `OTEL_TRACES_SAMPLER_ARG` falls back
 * to 1.0, as the specification says.
 * @see OpenTelemetry specification, "Environment Variable Specification", `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`
 */
export function readSamplingConfig(env: Env, errors: ConfigError[]): SamplingConfig {
  const out: SamplingConfig = {};
  const ratio = readString(env, 'TRACEHOOK_SAMPLING_RATIO');
  if (ratio !== undefined) {
    if (isRatio(ratio)) out.samplingRatio = Number(ratio);
    else errors.push(new ConfigError('TRACEHOOK_SAMPLING_RATIO', ratio, 'a number in [0, 1]'));
  }
  const name = readString(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase();
  if (name === undefined) return out;
  if (!(SAMPLER_NAMES as readonly string[]).includes(name)) {
    errors.push(new ConfigError('OTEL_TRACES_SAMPLER', name, `one of ${SAMPLER_NAMES.join(', ')}`));
    return out;
  }
  const arg = readString(env, 'OTEL_TRACES_SAMPLER_ARG');
  let samplerRatio = 1;
  if (arg !== undefined && name.endsWith('traceidratio')) {
    if (isRatio(arg)) samplerRatio = Number(arg);
    else errors.push(fallbackError('OTEL_TRACES_SAMPLER_ARG', arg, 'a number in [0, 1]; using 1.0'));
  }
  out.sampler = { name: name as SamplerName, ratio: samplerRatio };
  return out;
}

function isRatio(text: string): boolean {
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 && n <= 1;
}
