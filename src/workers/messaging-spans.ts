import { context, INVALID_SPAN_CONTEXT, isSpanContextValid, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span } from '@opentelemetry/api';
import { threadId } from 'node:worker_threads';
import { endSpan, markSpanError } from '../context/span-error.js';
import { getApiTracer } from '../context/tracer.js';
import { contextFromCarrier, injectToCarrier } from '../propagation/carrier-record.js';
import type { Carrier } from './protocol.js';
import { nextMessageId } from './protocol.js';

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

/**
 * `TRACEHOOK_MESSAGING_SPANS=false`: no PRODUCER/CONSUMER spans, only the context crosses, so the
 * receiver's own spans are children of the sender's active span. Spans cost ≈ 25 µs each here,
 * more than an untraced worker round trip.
 */
export function setMessagingSpans(enabled: boolean): void {
  spansEnabled = enabled;
}

/** The sending half of one message or task. */
export interface Outgoing {
  /** The PRODUCER span (the sender's own, non-recording, without messaging spans); the caller ends it once the message is handed over. */
  span: Span;
  /** Propagation fields of the PRODUCER span's context. */
  carrier: Carrier;
  /** `messaging.message.id`. */
  id: string;
}

function attributes(system: MessagingSystem, type: 'send' | 'process', operation: string, destination: string | undefined, id: string | undefined): Attributes {
  const attrs: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': type,
    'messaging.operation.name': operation,
    'process.pid': process.pid,
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
      const carrier = injectToCarrier(active);
      return carrier === undefined ? undefined : { span: trace.wrapSpanContext(parent), carrier, id };
    }
    const span = getApiTracer().startSpan(
      `${LABELS[system]} send`,
      { kind: SpanKind.PRODUCER, attributes: attributes(system, 'send', operation, destination, id) },
      active,
    );
    const carrier = injectToCarrier(trace.setSpan(active, span));
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
export function startProcess(system: MessagingSystem, destination: string | undefined, operation: string, carrier: Carrier | undefined, id: string | undefined): Incoming {
  try {
    const parent = contextFromCarrier(carrier, ROOT_CONTEXT);
    if (!spansEnabled) return { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), context: parent };
    const span = getApiTracer().startSpan(
      `${LABELS[system]} process`,
      { kind: SpanKind.CONSUMER, attributes: attributes(system, 'process', operation, destination, id) },
      parent,
    );
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
export function runProcess<T>(system: MessagingSystem, destination: string | undefined, operation: string, carrier: Carrier | undefined, id: string | undefined, handler: () => T): T {
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
