// The real OpenTelemetry SDK registered in the test process, as the preload would: a
// BasicTracerProvider exporting to memory, the AsyncLocalStorage context manager and the W3C
// trace-context + baggage propagators. Spans whose name starts with "drop" are not sampled.
// Usage: import { finished, reset } from './helpers/api-provider.mjs' (once per test file).
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SamplingDecision, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { RuntimeContextSpanProcessor } from '@tracehook/register/api';

export const exporter = new InMemorySpanExporter();

const dropByName = {
  shouldSample: (_ctx, _traceId, name) => ({
    decision: name.startsWith('drop') ? SamplingDecision.NOT_RECORD : SamplingDecision.RECORD_AND_SAMPLED,
  }),
  toString: () => 'DropByName',
};

export const provider = new BasicTracerProvider({
  sampler: dropByName,
  spanProcessors: [new RuntimeContextSpanProcessor(), new SimpleSpanProcessor(exporter)],
});
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));

/** Ended spans so far, in end order. */
export const finished = () => exporter.getFinishedSpans();

/** Forgets the ended spans. */
export const reset = () => exporter.reset();

/** The one ended span called `name`; fails when there are none or several. */
export function only(name) {
  const found = finished().filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`expected 1 span named ${name}, got ${found.length}`);
  return found[0];
}

/** Ids of a span as hex strings: { traceId, spanId, parentId }. */
export const ids = (span) => ({
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
  parentId: span.parentSpanContext?.spanId,
});

/** Resolves after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
