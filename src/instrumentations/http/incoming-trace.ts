import type { Context, Link } from '@opentelemetry/api';
import { ROOT_CONTEXT, isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import type { IncomingTracePolicy } from '../../config/request-data.js';

/** The parent context of a SERVER span and the links it starts with. */
export interface IncomingParent {
  parent: Context;
  links?: Link[];
}

/**
 * What an incoming request's `traceparent`/`tracestate`/`baggage` become, per `TRACEHOOK_INCOMING_TRACE`:
 * - `continue`: the extracted context is the parent (trace id, sampled flag and baggage are the caller's);
 * - `link`: a new trace (root span, sampled by the root sampler, no baggage) linked to the caller's span
 *   context, so a public endpoint's traces cannot be steered or joined by the caller yet stay findable;
 * - `ignore`: a new trace, nothing of the caller's kept.
 * @see OpenTelemetry semantic conventions, "HTTP Server" spans: a server SHOULD consider starting a new
 *   trace with a link to the incoming one for requests from outside its trust boundary
 */
export function incomingParent(headers: IncomingHttpHeaders, policy: IncomingTracePolicy): IncomingParent {
  if (policy === 'continue') return { parent: propagation.extract(ROOT_CONTEXT, headers) };
  if (policy === 'ignore') return { parent: ROOT_CONTEXT };
  const remote = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers));
  return { parent: ROOT_CONTEXT, links: remote && isSpanContextValid(remote) ? [{ context: remote }] : undefined };
}
