import * as api from '@opentelemetry/api';
import type { Attributes, Context, Span, SpanContext, Tracer, TracerProvider } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import type { ContextStorage, EnteringContextManager } from '../compat/otel-context.js';
import { asyncLocalStorageOf, contextManagerOf } from '../compat/otel-context.js';
import { endSpan, markSpanError } from '../context/span-error.js';
import { getApiTracer } from '../context/tracer.js';
import { LeanSpan } from '../provider/lean-span.js';
import { LeanTracer } from '../provider/lean-tracer.js';
import { epochHrTime, monotonicNow } from '../provider/monotonic-clock.js';
import { contextFromCarrier, injectToCarrier } from '../propagation/carrier-record.js';
import type { MessageCarrier } from './protocol.js';
import { nextMessageId, parseValidTraceparent, toTraceparent } from './protocol.js';

// The API's bindings, read once: in the bundle each module export is a getter, and this is the
// per-message path.
const { context, propagation, trace, INVALID_SPAN_CONTEXT, ProxyTracer, ROOT_CONTEXT, SpanKind } = api;
const isSpanContextValid = api.isSpanContextValid;

/** `messaging.system` of each crossing (ours: the semantic conventions name none of these). */
export type MessagingSystem = 'worker_threads' | 'child_process' | 'cluster' | 'piscina' | 'tinypool';

/** The span names, `<label> send` and `<label> process` (`worker send`, `piscina process`, …), made once. */
const SEND_NAMES: Record<MessagingSystem, string> = { worker_threads: 'worker send', child_process: 'child_process send', cluster: 'cluster send', piscina: 'piscina send', tinypool: 'tinypool send' };
const PROCESS_NAMES: Record<MessagingSystem, string> = {
  worker_threads: 'worker process',
  child_process: 'child_process process',
  cluster: 'cluster process',
  piscina: 'piscina process',
  tinypool: 'tinypool process',
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

/**
 * The API tracer, looked up again only when the global TracerProvider changed, or while it is the API's
 * stand-in (`ProxyTracer`, before a provider is registered): the registered provider's own tracer (a
 * {@link LeanTracer}) is what allows recording messaging spans after the post.
 */
function messagingTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== tracerOf || tracer === undefined || tracer instanceof ProxyTracer) {
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

/**
 * The sending half of one message or task, made before the post: its carrier, and either the PRODUCER span
 * already started (any tracer) or what {@link endSend} records it from after the post (tracehook's lean
 * tracer with its default sampler: the span's ids and start time, decided here).
 */
export class Outgoing {
  constructor(
    /** Propagation fields of the PRODUCER span's context (or its lone `traceparent`, see {@link setCompactCarrier}). */
    readonly carrier: MessageCarrier,
    /** `messaging.message.id`. */
    readonly id: string,
    /** The started PRODUCER span, if any; the caller ends it with {@link endSend} once the message is handed over. */
    readonly span: Span | undefined,
    readonly system: MessagingSystem,
    /** `messaging.destination.name`; a pool sets it at the hand-over ({@link setSendDestination}). */
    public destination: string | undefined,
    readonly operation: string,
    /** Set when {@link endSend} records the span: the tracer, the parent context and span context, the span id and start. */
    readonly tracer: LeanTracer | undefined,
    readonly context: Context | undefined,
    readonly parent: SpanContext | undefined,
    readonly spanId: string | undefined,
    readonly start: [number, number] | undefined,
  ) {}
}

/**
 * The attributes of a messaging span, as one new object the span keeps (no copy): the values are
 * tracehook's own strings, valid by construction. `process.pid` and `thread.id` are the resource's
 * (and the RuntimeContextSpanProcessor's, which sets them on every span), not repeated here.
 */
function attributes(system: MessagingSystem, type: 'send' | 'process', operation: string, destination: string | undefined, id: string | undefined): Attributes {
  const attrs: Attributes = { 'messaging.system': system, 'messaging.operation.type': type, 'messaging.operation.name': operation };
  if (destination !== undefined) attrs['messaging.destination.name'] = destination;
  if (id !== undefined) attrs['messaging.message.id'] = id;
  return attrs;
}

function attributeCount(destination: string | undefined, id: string | undefined): number {
  return 3 + (destination === undefined ? 0 : 1) + (id === undefined ? 0 : 1);
}

/** The lean tracer, when the messaging spans may be recorded by it with ids decided beforehand (its default sampler). */
function leanTracer(): LeanTracer | undefined {
  const t = messagingTracer();
  return t instanceof LeanTracer && t.decidesByParent ? t : undefined;
}

/**
 * Prepares a message sent from the active context: its carrier, made before the post, and its PRODUCER
 * span `<label> send`, child of the active span (recorded by {@link endSend} after the post where the lean
 * tracer allows, else started here). A tracer's span as the parent is taken as valid; any other is checked.
 * @returns undefined, having done nothing else, when no span is active: such a message carries no
 *   context and costs one context lookup. Never throws.
 */
export function startSend(system: MessagingSystem, destination: string | undefined, operation: string): Outgoing | undefined {
  try {
    const active = context.active();
    const parentSpan = trace.getSpan(active);
    if (parentSpan === undefined) return undefined;
    const parent = parentSpan.spanContext();
    if (!(parentSpan instanceof LeanSpan) && !isSpanContextValid(parent)) return undefined;
    const id = nextMessageId();
    if (!spansEnabled) {
      const carrier = carrierOf(parent, active);
      return carrier === undefined ? undefined : new Outgoing(carrier, id, undefined, system, destination, operation, undefined, undefined, undefined, undefined, undefined);
    }
    const lean = leanTracer();
    if (lean !== undefined && compactCarrier && parent.traceState === undefined && propagation.getBaggage(active) === undefined && !isTracingSuppressed(active)) {
      const start = monotonicNow();
      const spanId = lean.newSpanId();
      const sampled = (parent.traceFlags & 1) === 1;
      const carrier = '00-' + parent.traceId + '-' + spanId + (sampled ? '-01' : '-00');
      return sampled
        ? new Outgoing(carrier, id, undefined, system, destination, operation, lean, active, parent, spanId, start)
        : new Outgoing(carrier, id, undefined, system, destination, operation, undefined, undefined, undefined, undefined, undefined);
    }
    const span = messagingTracer().startSpan(SEND_NAMES[system], { kind: SpanKind.PRODUCER, attributes: attributes(system, 'send', operation, destination, id) }, active);
    const carrier = carrierOf(span.spanContext(), active, span);
    if (carrier === undefined) {
      endSpan(span);
      return undefined;
    }
    return new Outgoing(carrier, id, span, system, destination, operation, undefined, undefined, undefined, undefined, undefined);
  } catch {
    return undefined;
  }
}

/** Sets `messaging.destination.name` of a message's PRODUCER span, known only at the hand-over (a pool's task file). Never throws. */
export function setSendDestination(outgoing: Outgoing, destination: string): void {
  outgoing.destination = destination;
  try {
    outgoing.span?.setAttribute('messaging.destination.name', destination);
  } catch {
    // an attribute is not worth failing the hand-over
  }
}

/** Ends (or records, started when {@link startSend} ran) a message's PRODUCER span, ERROR when the send threw `err`. Never throws. */
export function endSend(outgoing: Outgoing, err?: unknown): void {
  let span = outgoing.span;
  if (span === undefined) {
    const tracer = outgoing.tracer;
    if (tracer === undefined) return;
    try {
      const { system, operation, destination, id } = outgoing;
      const attrs = attributes(system, 'send', operation, destination, id);
      // Started and ended here, by this thread: never open, so never tracked as open.
      span = tracer.recordSpan(SEND_NAMES[system], SpanKind.PRODUCER, attrs, attributeCount(destination, id), outgoing.context!, outgoing.parent, outgoing.spanId!, epochHrTime(outgoing.start), true);
    } catch {
      return;
    }
  } else if (!span.isRecording()) {
    return;
  }
  if (err !== undefined) markSpanError(span, err);
  endSpan(span);
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
    // A lone traceparent is checked once, here: the span made from it needs no other check.
    const remote = typeof carrier === 'string' ? parseValidTraceparent(carrier) : undefined;
    const parent = remote !== undefined ? trace.setSpanContext(ROOT_CONTEXT, remote) : typeof carrier === 'string' ? ROOT_CONTEXT : contextFromCarrier(carrier, ROOT_CONTEXT);
    if (!spansEnabled) return { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), context: parent };
    const attrs = attributes(system, 'process', operation, destination, id);
    const lean = remote !== undefined && (remote.traceFlags & 1) === 1 ? leanTracer() : undefined;
    const span =
      lean !== undefined && !isTracingSuppressed(parent)
        ? lean.recordSpan(PROCESS_NAMES[system], SpanKind.CONSUMER, attrs, attributeCount(destination, id), parent, remote, lean.newSpanId(), undefined, false)
        : messagingTracer().startSpan(PROCESS_NAMES[system], { kind: SpanKind.CONSUMER, attributes: attrs }, parent);
    return { span, context: trace.setSpan(parent, span) };
  } catch {
    return { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), context: ROOT_CONTEXT };
  }
}

/** The CONSUMER span whose handlers are running (for handlers whose errors Node catches). */
let current: Span | undefined;

/**
 * Runs `handler` inside a CONSUMER span (see {@link startProcess}), ending it when `handler`
 * returns. A throw marks the span ERROR and propagates unchanged.
 */
export function runProcess<T>(system: MessagingSystem, destination: string | undefined, operation: string, carrier: MessageCarrier | undefined, id: string | undefined, handler: () => T): T {
  return callProcess(system, destination, operation, carrier, id, handler, undefined, undefined, undefined) as T;
}

/** A dispatch function called with up to two arguments (`emit(event, value)`, a port's dispatch of `value`). */
export type Dispatch = (this: unknown, a: unknown, b: unknown) => unknown;

/**
 * {@link runProcess} for a message's dispatch: calls `fn` on `thisArg` with `a` and `b`, without a
 * closure per message, in the CONSUMER span's context (entered in the context manager's
 * AsyncLocalStorage directly, as `context.with` would, without its rest arguments).
 */
export function callProcess(
  system: MessagingSystem,
  destination: string | undefined,
  operation: string,
  carrier: MessageCarrier | undefined,
  id: string | undefined,
  fn: Dispatch,
  thisArg: unknown,
  a: unknown,
  b: unknown,
): unknown {
  const incoming = startProcess(system, destination, operation, carrier, id);
  const previous = current;
  current = incoming.span;
  try {
    return callInContext(incoming.context, fn, thisArg, a, b);
  } catch (err) {
    markSpanError(incoming.span, err);
    throw err;
  } finally {
    current = previous;
    endSpan(incoming.span);
  }
}

let storageOf: EnteringContextManager | undefined;
let storage: ContextStorage | undefined;

/** `fn.call(thisArg, a, b)` with `ctx` active: AsyncLocalStorage's `enterWith` and back, as TracehookContextManager#with does. */
export function callInContext(ctx: Context, fn: Dispatch, thisArg: unknown, a: unknown, b: unknown): unknown {
  const manager = contextManagerOf(context);
  if (manager !== storageOf) {
    storageOf = manager;
    storage = asyncLocalStorageOf(manager);
  }
  const als = storage;
  if (als === undefined) return context.with(ctx, fn, thisArg, a, b);
  const before = als.getStore();
  als.enterWith(ctx);
  try {
    return fn.call(thisArg, a, b);
  } finally {
    als.enterWith(before as Context);
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

/** {@link runFresh} for a message's dispatch: `fn.call(thisArg, a, b)`, without a closure per message. */
export function callFresh(fn: Dispatch, thisArg: unknown, a: unknown, b: unknown): unknown {
  if (context.active() === ROOT_CONTEXT) return fn.call(thisArg, a, b);
  return callInContext(ROOT_CONTEXT, fn, thisArg, a, b);
}
