import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Span } from '@opentelemetry/api';
import { warnOnce } from '../diag/logger.js';
import { markSpanError, toException } from './span-error.js';

/** A status code: the `SpanStatusCode` enum, or its name in any case (`'ok'`, `'ERROR'`). */
export type StatusCodeInput = SpanStatusCode | 'UNSET' | 'OK' | 'ERROR' | 'unset' | 'ok' | 'error';

/**
 * The innermost span of the current async context (sampled or not), or undefined when none is
 * active or tracing is off. Never throws.
 * @see https://opentelemetry.io/docs/specs/otel/trace/api/#get-active-span
 */
export function currentSpan(): Span | undefined {
  return trace.getActiveSpan();
}

/**
 * Sets attributes on the innermost span of the current async context.
 * @returns true when a recording span received them; false when there is none (a no-op)
 * @see https://opentelemetry.io/docs/specs/otel/common/#attribute (value types)
 */
export function setSpanAttributes(attributes: Attributes): boolean {
  const span = recordingSpan();
  if (!span) return false;
  span.setAttributes(attributes);
  return true;
}

/**
 * Sets the status of the innermost span. The code is stored as the numeric `SpanStatusCode`
 * whatever form is passed (Ray's review found a status code stored as a string); `message` is
 * kept for ERROR only, as the spec says. An unknown code is logged once and ignored.
 * @returns true when a recording span's status was set
 * @see https://opentelemetry.io/docs/specs/otel/trace/api/#set-status
 */
export function setSpanStatus(code: StatusCodeInput, message?: string): boolean {
  const normalized = normalizeCode(code);
  if (normalized === undefined) {
    warnOnce('api', `setSpanStatus:${String(code)}`, `setSpanStatus: unknown status code ${JSON.stringify(code)}; expected SpanStatusCode or 'UNSET'/'OK'/'ERROR'; status left unchanged`);
    return false;
  }
  const span = recordingSpan();
  if (!span) return false;
  span.setStatus(normalized === SpanStatusCode.ERROR && message !== undefined ? { code: normalized, message } : { code: normalized });
  return true;
}

/**
 * Records `error` on the innermost span as an `exception` event (type, message, stack) and, unless
 * `options.setStatus` is false, sets status ERROR with its message. Accepts any thrown value.
 * @returns true when a recording span received it
 * @see https://opentelemetry.io/docs/specs/otel/trace/exceptions/
 */
export function recordException(error: unknown, options: { setStatus?: boolean } = {}): boolean {
  const span = recordingSpan();
  if (!span) return false;
  if (options.setStatus === false) span.recordException(toException(error));
  else markSpanError(span, error);
  return true;
}

function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

function normalizeCode(code: unknown): SpanStatusCode | undefined {
  if (code === SpanStatusCode.UNSET || code === SpanStatusCode.OK || code === SpanStatusCode.ERROR) return code;
  if (typeof code !== 'string') return undefined;
  switch (code.toUpperCase()) {
    case 'UNSET':
      return SpanStatusCode.UNSET;
    case 'OK':
      return SpanStatusCode.OK;
    case 'ERROR':
      return SpanStatusCode.ERROR;
    default:
      return undefined;
  }
}
