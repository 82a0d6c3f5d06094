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
 * @see ../shared/reference/001 (Anyscale: a SpanProcessor stamping the request id on every span)
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
