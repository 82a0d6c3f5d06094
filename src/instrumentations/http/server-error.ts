import type { Exception, Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import { toException } from '../../context/span-error.js';
import { stateKey } from '../../state-key.js';
import { bound } from './request-values.js';

/** Bound on `exception.message` and on the status message taken from it, UTF-16 code units. */
export const EXCEPTION_MESSAGE_LIMIT = 1024;

/**
 * Bound on `exception.stacktrace`, UTF-16 code units, cut at the end of a line (a frame) when one ends
 * within it. V8 keeps 10 frames by default (`Error.stackTraceLimit`); the bound holds for an app that
 * raises that or puts a long text in its message (which the stack repeats).
 */
export const EXCEPTION_STACK_LIMIT = 4096;

// Shared by every copy of this build in one process, as the route metadata is (http-route.ts).
const kError = stateKey('http.serverError');
type WithError = { [kError]?: unknown };
/** The fields of an `Exception` that `recordException` reads (an app's error may hold anything in them). */
type Fields = { name?: unknown; message?: unknown; stack?: unknown; code?: unknown };

/**
 * Notes `err` as the error a framework surfaced while answering the request of `response` (the
 * `ServerResponse`); {@link applyServerError} puts it on the request's SERVER span as the span ends.
 * The first error noted is kept: the same error passes through nested routers, and an error handler
 * that fails hides the cause behind its own error. `null`/`undefined` are no error. Never throws.
 */
export function noteServerError(response: unknown, err: unknown): void {
  if (err === undefined || err === null || response === null || typeof response !== 'object') return;
  const r = response as WithError;
  if (r[kError] === undefined) r[kError] = err;
}

/**
 * At the end of the SERVER span of `response`: the error noted for it (if any) becomes an `exception`
 * event, bounded ({@link EXCEPTION_MESSAGE_LIMIT}, {@link EXCEPTION_STACK_LIMIT}); with `failed` (a 5xx
 * response) also status ERROR with the error's message and `error.type`. A 4xx leaves the status UNSET,
 * as the conventions ask of SERVER spans: the event still tells why the request was refused.
 * @see OpenTelemetry semantic conventions, "HTTP Server" spans (status, `error.type`), and "Recording errors"
 */
export function applyServerError(span: Span, response: object, failed: boolean): void {
  const r = response as WithError;
  const err = r[kError];
  if (err === undefined) return;
  // The span ends now: the response no longer keeps the error (and what it references) alive.
  r[kError] = undefined;
  if (failed) markServerError(span, err);
  else recordBounded(span, err);
}

/**
 * Records `err` on `span` as {@link applyServerError} does for a 5xx: a bounded `exception` event, status
 * ERROR with the (bounded) message, `error.type` the error's name, as instrumentation-http sets it. Never throws.
 */
export function markServerError(span: Span, err: unknown): void {
  const exception = recordBounded(span, err);
  if (exception === undefined) return;
  try {
    const { message, name } = typeof exception === 'string' ? { message: exception, name: undefined } : (exception as Fields);
    span.setStatus(typeof message === 'string' && message ? { code: SpanStatusCode.ERROR, message } : { code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', (typeof name === 'string' && name) || 'Error');
  } catch {
    // The SDK failed; the app's error is what matters.
  }
}

/** Records `err`'s bounded form as an exception event; returns that form, undefined when it could not be read. */
function recordBounded(span: Span, err: unknown): Exception | undefined {
  try {
    const exception = boundedException(err);
    span.recordException(exception);
    return exception;
  } catch {
    // An error whose properties throw, or a failing SDK: no event rather than a new error in the app.
    return undefined;
  }
}

/**
 * What `span.recordException` is given for `err`: its name, `code` (a string or number: OpenTelemetry JS's
 * `recordException` makes it the `exception.type`), message and stack, each read once and bounded.
 */
export function boundedException(err: unknown): Exception {
  const e = toException(err);
  if (typeof e === 'string') return bound(e, EXCEPTION_MESSAGE_LIMIT);
  const { name, message, stack, code } = e as Fields;
  const out: Fields = {};
  if (typeof name === 'string') out.name = name;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (typeof message === 'string') out.message = bound(message, EXCEPTION_MESSAGE_LIMIT);
  if (typeof stack === 'string') out.stack = boundStack(stack);
  return out as Exception;
}

function boundStack(stack: string): string {
  if (stack.length <= EXCEPTION_STACK_LIMIT) return stack;
  const cut = bound(stack, EXCEPTION_STACK_LIMIT);
  const line = cut.lastIndexOf('\n');
  return line > 0 ? cut.slice(0, line) : cut;
}
