import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';

/**
 * The OpenTelemetry context of the request being handled: the current value of the trace stack,
 * which follows the request through awaits, timers, event emitters and streams (it is held in
 * AsyncLocalStorage by the context manager the preload registers). Pass it as the parent of your
 * own spans: `tracer.startActiveSpan(name, {}, getTraceContext(), fn)`.
 *
 * @returns the active context when it carries a valid span context (a local span, sampled or not,
 *   or a remote one from `extractContext`); `undefined` when tracing is off (no context manager
 *   registered) or no span is active. Never throws.
 * @see Ray Serve `get_trace_context()` (Ray pull request 61230, https://github.com/ray-project/ray/pull/61230)
 */
export function getTraceContext(): Context | undefined {
  const active = context.active();
  const spanContext = trace.getSpanContext(active);
  return spanContext && isSpanContextValid(spanContext) ? active : undefined;
}
