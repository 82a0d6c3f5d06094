import type { Sampler } from '@opentelemetry/sdk-trace-base';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import type { TracehookConfig } from '../config/environment.js';

/**
 * Parent-based always-on, the default sampler: root spans are sampled, child spans follow their
 * parent's sampled flag. A class of its own so that the lean tracer can recognise it and decide
 * without calling it (same decisions, no result object per span).
 * @see OpenTelemetry specification, Tracing SDK, "ParentBased" (https://opentelemetry.io/docs/specs/otel/trace/sdk/#parentbased)
 */
export class ParentBasedAlwaysOnSampler extends ParentBasedSampler {
  constructor() {
    super({ root: new AlwaysOnSampler() });
  }
}

/**
 * The sampler of the default hook: parent-based trace-id-ratio with `TRACEHOOK_SAMPLING_RATIO`
 * (Ray Serve's `sampling_ratio`), else the standard `OTEL_TRACES_SAMPLER` / `_ARG`, else
 * parent-based always-on (ratio 1.0).
 * @see OpenTelemetry specification, SDK environment variables, `OTEL_TRACES_SAMPLER`
 */
export function createSampler(config: Pick<TracehookConfig, 'samplingRatio' | 'sampler'>): Sampler {
  if (config.samplingRatio !== undefined) {
    return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.samplingRatio) });
  }
  switch (config.sampler?.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.sampler.ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampler.ratio) });
    default:
      return new ParentBasedAlwaysOnSampler();
  }
}
