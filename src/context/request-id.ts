import { context, createContextKey } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';

/**
 * The context key under which the current request id is stored. Created with
 * `createContextKey('tracehook.request_id')`, i.e. `Symbol.for(...)`, so every copy of this
 * package (and code that does not import it) uses the same key.
 */
export const REQUEST_ID_KEY: symbol = createContextKey('tracehook.request_id');

/**
 * The span attribute carrying the request id. Ours: the semantic conventions have no general
 * request id attribute (only protocol-specific ones such as `aws.request_id`).
 */
export const REQUEST_ID_ATTRIBUTE = 'tracehook.request.id';

/**
 * Runs `fn` with `id` as the request id of the current context (a new immutable context value;
 * the previous one is back when `fn` returns or throws, and async work started inside keeps it).
 * Spans started inside get the {@link REQUEST_ID_ATTRIBUTE} attribute from
 * `RuntimeContextSpanProcessor`. Without a registered context manager, `fn` just runs.
 * @param id - request id; numbers are stored as their decimal string
 * @returns what `fn` returns; errors from `fn` propagate unchanged
 * @see Anyscale docs, "Tracing guide" for Ray Serve (https://docs.anyscale.com/monitoring/tracing): a SpanProcessor stamping the request id on every span
 */
export function withRequestId<R>(id: string | number, fn: () => R): R {
  return context.with(context.active().setValue(REQUEST_ID_KEY, String(id)), fn);
}

/**
 * The request id set by {@link withRequestId} in `ctx` (default: the active context), or
 * undefined when none is known.
 */
export function getRequestId(ctx: Context = context.active()): string | undefined {
  const id = ctx.getValue(REQUEST_ID_KEY);
  return typeof id === 'string' ? id : undefined;
}

/** Longest request id taken from a request header, in characters. */
export const MAX_REQUEST_ID_LENGTH = 128;

/**
 * `value` when it can serve as a request id taken from a client (an `x-request-id` header): a
 * string of 1–{@link MAX_REQUEST_ID_LENGTH} visible ASCII characters (0x21–0x7E: UUIDs, ULIDs,
 * base64 and the like); anything else is not used. The id is copied onto every span of the
 * request, so an unbounded one would multiply the size of every span.
 */
export function acceptRequestId(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_REQUEST_ID_LENGTH) return undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return undefined;
  }
  return value;
}
