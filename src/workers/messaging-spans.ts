import * as api from '@opentelemetry/api';
import type { Attributes, Context, Span, SpanContext, Tracer, TracerProvider } from '@opentelemetry/api';
import { endSpan, markSpanError } from '../context/span-error.js';
import { getApiTracer } from '../context/tracer.js';
import { contextFromCarrier, injectToCarrier } from '../propagation/carrier-record.js';
import type { MessageCarrier } from './protocol.js';
import { nextMessageId, parseTraceparent, toTraceparent } from './protocol.js';
import { threadId } from './thread.js';

// The API's bindings, read once: in the bundle each module export is a getter, and this is the
// per-message path.
const { context, propagation, trace, INVALID_SPAN_CONTEXT, ROOT_CONTEXT, SpanKind } = api;
const isSpanContextValid = api.isSpanContextValid;

/** `messaging.system` of each crossing (ours: the semantic conventions name none of these). */
export type MessagingSystem = 'worker_threads' | 'child_process' | 'cluster' | 'piscina' | 'tinypool';

/** The first word of the span names: `worker send`, `worker process`, `piscina send`, … */
const LABELS: Record<MessagingSystem, string> = {
  worker_threads: 'worker',
  child_process: 'child_process',
  cluster: 'cluster',
  piscina: 'piscina',
  tinypool: 'tinypool',
};

let spansEnabled = true;
/** The configured propagators include W3C Trace Context: a lone `traceparent` string may carry the context. */
let compactCarrier = false;

/**
 * `TRACEHOOK_MESSAGING_SPANS=false`: no PRODUCER/CONSUMER spans, only the context crosses, so the
 * receiver's own spans are children of the sender's active span (for apps that send many small
 * messages: each span is a few µs of the sender's or receiver's CPU, plus its export).
 */
export function setMessagingSpans(enabled: boolean): void {
  spansEnabled = enabled;
}

/**
 * Whether a message whose context holds nothing but a span context (no `tracestate`, no baggage)
 * may carry a lone W3C `traceparent` string instead of the propagators' fields: true when the
 * configured propagators include `tracecontext` (they would write exactly that). The receiver reads
 * either form.
 */
export function setCompactCarrier(enabled: boolean): void {
  compactCarrier = enabled;
}

let tracerOf: TracerProvider | undefined;
let tracer: Tracer | undefined;

/** The API tracer, looked up again only when the global TracerProvider changed. */
function messagingTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== tracerOf || tracer === undefined) {
    tracer = getApiTracer();
    tracerOf = provider;
  }
  return tracer;
}

/** The carrier of `spanContext` sent from `ctx`: the compact form when it says all, else the propagators'. */
function carrierOf(spanContext: SpanContext, ctx: Context, span?: Span): MessageCarrier | undefined {
  if (compactCarrier && spanContext.traceState === undefined && propagation.getBaggage(ctx) === undefined) return toTraceparent(spanContext);
  return injectToCarrier(span === undefined ? ctx : trace.setSpan(ctx, span));
}

/** The sending half of one message or task. */
export interface Outgoing {
  /** The PRODUCER span (the sender's own, non-recording, without messaging spans); the caller ends it once the message is handed over. */
  span: Span;
  /** Propagation fields of the PRODUCER span's context (or its lone `traceparent`, see {@link setCompactCarrier}). */
  carrier: MessageCarrier;
  /** `messaging.message.id`. */
  id: string;
}

const pid = process.pid;

function attributes(system: MessagingSystem, type: 'send' | 'process', operation: string, destination: string | undefined, id: string | undefined): Attributes {
  const attrs: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': type,
    'messaging.operation.name': operation,
    'process.pid': pid,
    'thread.id': threadId,
  };
  if (destination !== undefined) attrs['messaging.destination.name'] = destination;
  if (id !== undefined) attrs['messaging.message.id'] = id;
  return attrs;
}

/**
 * Starts the PRODUCER span `<label> send` of a message sent from the active context, as a child of
 * the active span, and the carrier that makes the receiver's CONSUMER span its child.
 * @returns undefined, having done nothing else, when no span is active: such a message carries no
 *   context and costs one context lookup. Never throws.
 */
export function startSend(system: MessagingSystem, destination: string | undefined, operation: string): Outgoing | undefined {
  try {
    const active = context.active();
    const parent = trace.getSpanContext(active);
    if (parent === undefined || !isSpanContextValid(parent)) return undefined;
    const id = nextMessageId();
    if (!spansEnabled) {
      const carrier = carrierOf(parent, active);
      return carrier === undefined ? undefined : { span: trace.wrapSpanContext(parent), carrier, id };
    }
    const span = messagingTracer().startSpan(`${LABELS[system]} send`, { kind: SpanKind.PRODUCER, attributes: attributes(system, 'send', operation, destination, id) }, active);
    const carrier = carrierOf(span.spanContext(), active, span);
    if (carrier === undefined) {
      endSpan(span);
      return undefined;
    }
    return { span, carrier, id };
  } catch {
    return undefined;
  }
}

/** Ends a PRODUCER span, ERROR when the send threw `err`. Never throws. */
export function endSend(outgoing: Outgoing, err?: unknown): void {
  if (!outgoing.span.isRecording()) return;
  if (err !== undefined) markSpanError(outgoing.span, err);
  endSpan(outgoing.span);
}

/** A started CONSUMER span and the context the handler runs in. */
export interface Incoming {
  span: Span;
  context: Context;
}

/**
 * Starts the CONSUMER span `<label> process` of a received message, child of the context in
 * `carrier`, on a fresh trace stack (built on ROOT_CONTEXT, never on whatever was active).
 * Never throws: on failure the handler runs in ROOT_CONTEXT with a non-recording span.
 */
export function startProcess(system: MessagingSystem, destination: string | undefined, operation: string, carrier: MessageCarrier | undefined, id: string | undefined): Incoming {
  try {
    const parent = typeof carrier === 'string' ? contextOfTraceparent(carrier) : contextFromCarrier(carrier, ROOT_CONTEXT);
    if (!spansEnabled) return { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), context: parent };
    const span = messagingTracer().startSpan(`${LABELS[system]} process`, { kind: SpanKind.CONSUMER, attributes: attributes(system, 'process', operation, destination, id) }, parent);
    return { span, context: trace.setSpan(parent, span) };
  } catch {
    return { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), context: ROOT_CONTEXT };
  }
}

/** The context a compact carrier describes, on ROOT_CONTEXT (ROOT_CONTEXT itself when it is not a valid `traceparent`). */
function contextOfTraceparent(traceparent: string): Context {
  const spanContext = parseTraceparent(traceparent);
  return spanContext !== undefined && isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

/** The CONSUMER span whose handlers are running (for handlers whose errors Node catches). */
let current: Span | undefined;

/**
 * Runs `handler` inside a CONSUMER span (see {@link startProcess}), ending it when `handler`
 * returns. A throw marks the span ERROR and propagates unchanged.
 */
export function runProcess<T>(system: MessagingSystem, destination: string | undefined, operation: string, carrier: MessageCarrier | undefined, id: string | undefined, handler: () => T): T {
  const incoming = startProcess(system, destination, operation, carrier, id);
  const previous = current;
  current = incoming.span;
  try {
    return context.with(incoming.context, handler);
  } catch (err) {
    markSpanError(incoming.span, err);
    throw err;
  } finally {
    current = previous;
    endSpan(incoming.span);
  }
}

/**
 * Marks the running CONSUMER span ERROR: for listeners whose exceptions an EventTarget catches
 * (and re-throws on the next tick) before they reach {@link runProcess}.
 */
export function markProcessError(err: unknown): void {
  if (current !== undefined) markSpanError(current, err);
}

/**
 * Runs `handler` on an empty trace stack: a message that carries no context must not run in the
 * context of whoever set up the channel (a request long gone). Costs nothing when it already is empty.
 */
export function runFresh<T>(handler: () => T): T {
  if (context.active() === ROOT_CONTEXT) return handler();
  return context.with(ROOT_CONTEXT, handler);
}
