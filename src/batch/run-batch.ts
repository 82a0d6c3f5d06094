import { context, trace } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { warnOnce } from '../diag/logger.js';
import { endSpan, markSpanError } from '../context/span-error.js';
import { BATCH_INDEX_ATTRIBUTE, BATCH_SIZE_ATTRIBUTE, BATCH_WAIT_MS_ATTRIBUTE } from './batch-attributes.js';
import type { BatchHandler } from './batch.js';
import type { QueuedCall } from './batch-queue.js';
import { startLinkedSpan } from './start-batch-span.js';

/** One caller's call to a `batch()` function, while it waits for its result. */
export interface BatchCall<T, R> extends QueuedCall {
  item: T;
  /** The caller's span, ended when the caller gets its result. */
  span: Span;
  /** The caller's context with `span` active. */
  ctx: Context;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs `handler` on one batch inside the span `<name> batch` (child of the first caller's span, linked to
 * every caller's), gives each caller its result or error, then calls `finished`. Never rejects.
 */
export async function runBatch<T, R>(handler: BatchHandler<T, R>, name: string, calls: BatchCall<T, R>[], finished: () => void): Promise<void> {
  const { span, parent } = startLinkedBatchSpan(name, calls);
  try {
    const results: unknown = await context.with(trace.setSpan(parent, span), () => handler(calls.map((e) => e.item)));
    if (!Array.isArray(results) || results.length !== calls.length) {
      const err = new TypeError(`batch(${name}): the handler returned ${describe(results)} for ${calls.length} items; expected an array of ${calls.length} results in item order`);
      // The same handler bug on every batch is one problem with a running count.
      warnOnce('batch', `results:${name}`, err.message);
      throw err;
    }
    endSpan(span);
    calls.forEach((e, index) => settle(e, results[index]));
  } catch (err) {
    markSpanError(span, err);
    endSpan(span);
    for (const e of calls) fail(e, err);
  } finally {
    finished();
  }
}

// The batch span, and on each caller's span its place in the batch, its wait and a link to the batch span.
function startLinkedBatchSpan<T, R>(name: string, calls: BatchCall<T, R>[]): { span: Span; parent: Context } {
  const started = startLinkedSpan(
    { name: `${name} batch` },
    calls.map((e) => e.ctx),
  );
  const startedAt = performance.now();
  const batchLink = { context: started.span.spanContext() };
  calls.forEach((e, index) => {
    e.span.setAttributes({ [BATCH_INDEX_ATTRIBUTE]: index, [BATCH_SIZE_ATTRIBUTE]: calls.length, [BATCH_WAIT_MS_ATTRIBUTE]: startedAt - e.enqueuedAt });
    e.span.addLink(batchLink);
  });
  return started;
}

function settle<T, R>(call: BatchCall<T, R>, result: unknown): void {
  if (result instanceof Error) return fail(call, result);
  endSpan(call.span);
  call.resolve(result as R);
}

function fail<T, R>(call: BatchCall<T, R>, err: unknown): void {
  markSpanError(call.span, err);
  endSpan(call.span);
  call.reject(err);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : typeof value;
}
