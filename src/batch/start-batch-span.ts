import { context, isSpanContextValid, SpanKind, trace } from '@opentelemetry/api';
import type { Attributes, Context, Link, Span } from '@opentelemetry/api';
import { runInSpan } from '../context/run-in-span.js';
import { getApiTracer } from '../context/tracer.js';
import { contextFromCarrier } from '../propagation/carrier-record.js';
import { BATCH_INDEX_ATTRIBUTE, BATCH_SIZE_ATTRIBUTE } from './batch-attributes.js';

/** An item of a batch: an OpenTelemetry `Context`, a carrier (headers, message properties, `Metadata`…), or nothing. */
export type ContextOrCarrier = Context | object | null | undefined;

/** Options of {@link startBatchSpan}. */
export interface BatchSpanOptions {
  /** Span name. */
  name: string;
  /** Span kind. Default `SpanKind.INTERNAL` (use `CONSUMER` for a batch of queue messages). */
  kind?: SpanKind;
  /** Attributes set when the span starts, besides `tracehook.batch.size`. */
  attributes?: Attributes;
}

/**
 * Runs `fn(span)` inside one span for a batch of items that each carry their own trace context,
 * such as queue messages with a `traceparent`:
 * - the span is a child of the first item whose context has a valid span context (the active
 *   context when none has);
 * - it has one link per item with a valid span context, to that span context, with attribute
 *   `tracehook.batch.index` = the item's index (Ray keeps only the first request's context);
 * - attribute `tracehook.batch.size` = the number of items.
 * Carriers are read with the configured propagators on an empty base, so an item without a
 * `traceparent` contributes no link. The span ends, and errors are recorded, as with `traced()`
 * (sync, promise or generator result).
 *
 * @param contextsOrCarriers - one entry per item; see {@link ContextOrCarrier}
 * @returns what `fn` returns; its errors are rethrown unchanged. Never throws on its own.
 * @see Ray Serve `BatchTraceContextManager` (Ray pull request 61230, https://github.com/ray-project/ray/pull/61230)
 * @example
 * await startBatchSpan({ name: 'orders process', kind: SpanKind.CONSUMER }, msgs.map((m) => m.headers),
 *   async () => handle(msgs));
 */
export function startBatchSpan<R>(nameOrOptions: string | BatchSpanOptions, contextsOrCarriers: readonly ContextOrCarrier[], fn: (span: Span) => R): R {
  const options = typeof nameOrOptions === 'string' ? { name: nameOrOptions } : nameOrOptions;
  const { span, parent } = startLinkedSpan(options, (contextsOrCarriers ?? []).map(toContext));
  return runInSpan(span, parent, () => fn(span));
}

/** Starts (does not activate) the batch span for `contexts`; see {@link startBatchSpan}. */
export function startLinkedSpan(options: BatchSpanOptions, contexts: readonly Context[]): { span: Span; parent: Context } {
  const links: Link[] = [];
  let parent: Context | undefined;
  contexts.forEach((ctx, index) => {
    const spanContext = trace.getSpanContext(ctx);
    if (!spanContext || !isSpanContextValid(spanContext)) return;
    parent ??= ctx;
    links.push({ context: spanContext, attributes: { [BATCH_INDEX_ATTRIBUTE]: index } });
  });
  parent ??= context.active();
  const span = getApiTracer().startSpan(options.name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: { ...options.attributes, [BATCH_SIZE_ATTRIBUTE]: contexts.length }, links }, parent);
  return { span, parent };
}

function toContext(item: ContextOrCarrier): Context {
  if (isContext(item)) return item;
  return contextFromCarrier(item);
}

function isContext(item: unknown): item is Context {
  const c = item as Partial<Context> | null | undefined;
  return typeof c?.getValue === 'function' && typeof c.setValue === 'function' && typeof c.deleteValue === 'function';
}
