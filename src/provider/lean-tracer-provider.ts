import type { Tracer, TracerOptions } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { tracerOptionsOf } from '../compat/otel-sdk.js';
import { logDebug } from '../diag/logger.js';
import { LeanTracer } from './lean-tracer.js';
import type { LeanTracerOptions } from './lean-tracer.js';

/**
 * The SDK's `BasicTracerProvider` (configuration, span limits from `OTEL_SPAN_*` / `OTEL_ATTRIBUTE_*`,
 * span processors, forceFlush, shutdown: all as in the SDK) whose tracers make {@link LeanTracer}
 * spans. It reads the options the SDK builds for its own tracers (`_tracerOptions`, an internal
 * of `@opentelemetry/sdk-trace` 2.x); should a release drop it, the SDK's own tracer is used and
 * that is said at debug level.
 */
export class LeanTracerProvider extends BasicTracerProvider {
  private readonly leanTracers = new Map<string, Tracer>();

  override getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    const key = `${name}@${version || ''}:${options?.schemaUrl || ''}`;
    let tracer = this.leanTracers.get(key);
    if (tracer === undefined) {
      const tracerOptions = tracerOptionsOf<LeanTracerOptions>(this);
      if (tracerOptions === undefined) {
        logDebug('provider', "the SDK's TracerProvider has no _tracerOptions: using its own tracer");
        return super.getTracer(name, version, options);
      }
      tracer = new LeanTracer({ name, version, schemaUrl: options?.schemaUrl }, tracerOptions);
      this.leanTracers.set(key, tracer);
    }
    return tracer;
  }
}
