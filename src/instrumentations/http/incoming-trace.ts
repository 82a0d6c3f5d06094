import type { Context, Link, Span, TextMapPropagator } from '@opentelemetry/api';
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

// The headers of the request whose extraction is next, as instrumentation-http announces them
// through its start hook just before it extracts; and the links for `link`, until its request hook.
let expected: object | undefined;
const pendingLinks = new WeakMap<object, Link[]>();

/**
 * The global propagator, made to apply `TRACEHOOK_INCOMING_TRACE` to instrumentation-http's SERVER
 * spans (`TRACEHOOK_HTTP_INSTRUMENTATION=stock`), which always extract the incoming context. Only the
 * extraction of headers announced with {@link expectIncomingExtract} is changed; every other
 * extraction and injection (outgoing requests, workers, gRPC) is `inner`'s own. `inner` itself when
 * the policy is `continue` or the stock server side is not in use.
 */
export function incomingTracePropagator(inner: TextMapPropagator, policy: IncomingTracePolicy, stockServer: boolean): TextMapPropagator {
  if (policy === 'continue' || !stockServer) return inner;
  return {
    inject: (ctx, carrier, setter) => inner.inject(ctx, carrier, setter),
    fields: () => inner.fields(),
    extract(ctx, carrier, getter) {
      if (carrier === undefined || carrier !== expected) return inner.extract(ctx, carrier, getter);
      expected = undefined;
      const { links } = incomingParent(carrier as IncomingHttpHeaders, policy);
      if (links) pendingLinks.set(carrier as object, links);
      return ctx;
    },
  };
}

/** Announces that `headers` are extracted next for a SERVER span (instrumentation-http's start hook). */
export function expectIncomingExtract(headers: IncomingHttpHeaders): void {
  expected = headers;
}

/** Adds to `span` the link {@link incomingTracePropagator} kept for `headers` under `link`, if any. */
export function addIncomingLink(span: Span, headers: IncomingHttpHeaders): void {
  const links = pendingLinks.get(headers);
  if (!links) return;
  pendingLinks.delete(headers);
  span.addLinks(links);
}
