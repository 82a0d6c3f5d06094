import type { Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ServerResponse } from 'node:http';
import { onProcessEvent } from '../../preload/signals.js';
import { markServerError } from './server-error.js';

/**
 * `error.type` of a SERVER span whose response closed before it finished: the client went away
 * (gave up, cancelled, closed an event stream) or the connection was destroyed. `ECONNRESET` is the
 * code Node.js gives the request's own `'aborted'` error in that case: a low-cardinality identifier,
 * as the conventions ask when no status code describes the failure.
 * @see OpenTelemetry semantic conventions, "HTTP Server" spans, `error.type`
 */
export const CLIENT_GONE_ERROR_TYPE = 'ECONNRESET';

/**
 * Ends `span`, a SERVER span whose `response` closed before `'finish'`: status ERROR, `error.type`
 * {@link CLIENT_GONE_ERROR_TYPE}, and `http.response.status_code` when the headers went out.
 */
export function endClientGone(span: Span, response: ServerResponse): void {
  markClientGone(span, response);
  span.end();
}

/** The attributes and status of {@link endClientGone}, without ending the span. */
export function markClientGone(span: Span, response: ServerResponse): void {
  if (response.headersSent) span.setAttribute('http.response.status_code', response.statusCode);
  span.setAttribute('error.type', CLIENT_GONE_ERROR_TYPE);
  span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the response finished' });
}

/** The SERVER span whose request listener has just thrown, until the error reaches `'uncaughtExceptionMonitor'`. */
let thrownFrom: Span | undefined;
let monitoring = false;

/**
 * Notes that a request listener threw out of `span`'s `emit` without catching the error: a rethrow would make
 * Node.js report our line, not the app's, as where it was thrown. The span is marked ERROR now; the error itself
 * reaches it through `'uncaughtExceptionMonitor'` (recorded as `markServerError` does), which Node.js emits before it reports
 * an uncaught error, in the same turn. A caller of `emit` that catches the error leaves the span ERROR without it:
 * the note is forgotten at the next microtask. Never throws.
 */
export function handlerThrew(span: Span): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  thrownFrom = span;
  queueMicrotask(() => {
    if (thrownFrom === span) thrownFrom = undefined;
  });
  if (monitoring) return;
  monitoring = true;
  onProcessEvent('uncaughtExceptionMonitor', (err) => {
    const thrown = thrownFrom;
    thrownFrom = undefined;
    if (thrown) markServerError(thrown, err);
  });
}
