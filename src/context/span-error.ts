import { SpanStatusCode } from '@opentelemetry/api';
import type { Exception, Span } from '@opentelemetry/api';

/** A thrown value's message: `Error#message`, else its string form; never throws. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return safeString(err);
}

/**
 * What `span.recordException` accepts: an Error as is (name, message, stack), a string as the
 * message, anything else (a thrown object or number) as `{ name, message }` so the event still
 * has the `exception.type`/`exception.message` the spec requires.
 */
export function toException(err: unknown): Exception {
  if (err instanceof Error || typeof err === 'string') return err;
  const name = err === null ? 'null' : typeof err === 'object' ? (err.constructor?.name ?? 'Object') : typeof err;
  return { name, message: safeString(err) };
}

/**
 * Records `err` as an exception event and sets status ERROR with its message. Never throws: a
 * broken span must not turn the app's own error into a different one.
 * @see https://opentelemetry.io/docs/specs/otel/trace/exceptions/
 */
export function markSpanError(span: Span, err: unknown): void {
  try {
    span.recordException(toException(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
  } catch {
    // The SDK failed; the app's error is what matters.
  }
}

/** Ends `span`, swallowing any SDK failure. */
export function endSpan(span: Span): void {
  try {
    span.end();
  } catch {
    // as above
  }
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
