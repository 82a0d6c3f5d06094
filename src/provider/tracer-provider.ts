import { trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { getConfig } from '../config/current.js';
import { DbSpanProcessor } from '../processors/db-span-processor.js';
import { NextRouteSpanProcessor } from '../processors/next-route-span-processor.js';
import { OpenSpanProcessor, flushOpenSpansWith } from '../processors/open-span-processor.js';
import { PooledIdGenerator } from './id-generator.js';
import { LeanTracerProvider } from './lean-tracer-provider.js';
import { createResource } from './resource.js';
import { createSampler } from './sampler.js';

/** Options of {@link registerTracerProvider}; each defaults to what the environment configures. */
export interface TracerProviderOptions {
  /** Where ended spans go. Default: none (spans are recorded and dropped). */
  spanProcessors?: SpanProcessor[];
  /** Default: parent-based trace-id-ratio from `TRACEHOOK_SAMPLING_RATIO` / `OTEL_TRACES_SAMPLER`. */
  sampler?: Sampler;
  /** Default: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, pid, parent pid and thread id. */
  resource?: Resource;
}

/**
 * Creates a TracerProvider and sets it as the global one, the Node.js counterpart of Ray's
 * `trace.set_tracer_provider(TracerProvider())` inside a startup hook. The preload flushes the
 * global provider at exit, so a hook that uses this needs no exit handling of its own; spans still
 * open then are ended first, marked `tracehook.incomplete` (an {@link OpenSpanProcessor} comes first). A
 * {@link DbSpanProcessor} follows it: database error messages lose the values they quote; then a
 * {@link NextRouteSpanProcessor}: a Next.js app's SERVER spans are named by its routes.
 * With `TRACEHOOK_TRACER=lean` (the default) it is a {@link LeanTracerProvider}, a `BasicTracerProvider`
 * whose spans cost less to make; `stock` gives the SDK's `BasicTracerProvider` unchanged.
 * @returns the registered provider
 * @see Ray docs, "Tracing" (https://docs.ray.io/en/latest/ray-observability/user-guides/ray-tracing.html): the startup hook "sets up the Tracer Provider"
 */
export function registerTracerProvider(options: TracerProviderOptions = {}): BasicTracerProvider {
  const config = getConfig();
  const providerConfig = {
    sampler: options.sampler ?? createSampler(config),
    resource: options.resource ?? createResource(config),
    spanProcessors: [new OpenSpanProcessor(), new DbSpanProcessor(), new NextRouteSpanProcessor(), ...(options.spanProcessors ?? [])],
  };
  const provider = config.tracer === 'lean' ? new LeanTracerProvider({ ...providerConfig, idGenerator: new PooledIdGenerator() }) : new BasicTracerProvider(providerConfig);
  trace.setGlobalTracerProvider(provider);
  flushOpenSpansWith(() => provider.forceFlush());
  return provider;
}

/** The SDK provider behind the global API proxy, or undefined while none is registered. */
export function getRegisteredProvider(): { forceFlush?: () => Promise<void>; shutdown?: () => Promise<void> } | undefined {
  const global = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const delegate = (global.getDelegate?.() ?? global) as { forceFlush?: () => Promise<void> };
  return typeof delegate.forceFlush === 'function' ? delegate : undefined;
}
