import { context, SpanKind, trace } from '@opentelemetry/api';
import { getApiTracer } from '../context/tracer.js';
import { BatchQueue } from './batch-queue.js';
import { runBatch } from './run-batch.js';
import type { BatchCall } from './run-batch.js';

/** Options of {@link batch}. */
export interface BatchOptions {
  /** Most items per handler call; integer ≥ 1. Default 10 (Ray Serve's `max_batch_size`). */
  maxBatchSize?: number;
  /**
   * Longest time, in ms, the oldest queued item waits for the batch to fill before a partial batch
   * runs; finite ≥ 0. Default 10 (Ray Serve's `batch_wait_timeout_s` = 0.01). With 0, calls made in
   * the same tick still share a batch.
   */
  batchWaitTimeoutMs?: number;
  /** Most handler calls running at once; integer ≥ 1. Default 1 (Ray Serve's `max_concurrent_batches`). */
  maxConcurrentBatches?: number;
  /** Span name of each caller's span; the batch span is `<name> batch`. Default: the handler's name, else `'batch'`. */
  name?: string;
}

/**
 * The handler: receives the items of one batch in call order and returns one result per item, in
 * the same order (or a promise of that array). An item's result that is an `Error` instance is
 * that caller's error.
 */
export type BatchHandler<T, R> = (items: T[]) => ReadonlyArray<R | Error> | PromiseLike<ReadonlyArray<R | Error>>;

/**
 * Turns a handler of item arrays into a function callers call one item at a time, as Ray Serve's
 * `@serve.batch`: calls are queued, and the handler runs on up to `maxBatchSize` items when the
 * batch is full or the oldest item has waited `batchWaitTimeoutMs`.
 *
 * Tracing (each is a no-op without a TracerProvider; batching works the same):
 * - each call starts a caller span `<name>` (child of the caller's current span) that lasts until
 *   that caller gets its result, with `tracehook.batch.index`, `tracehook.batch.size`,
 *   `tracehook.batch.wait_ms` (ms from the call to its batch's start) and a link to the batch span;
 * - each batch runs the handler inside a span `<name> batch`, child of the first caller's span, with
 *   a link to every caller's span carrying `tracehook.batch.index`; spans the handler makes are its
 *   children.
 *
 * Outcomes, per caller: its own result; its own error when its result is an `Error` instance
 * (its span gets status ERROR); when the handler throws or rejects, every caller of that batch gets
 * that error; when the handler returns a non-array or an array of the wrong length, every caller
 * of that batch gets a `TypeError` saying so (and it is logged).
 *
 * @throws TypeError when `handler` is not a function, RangeError for an out-of-range option (at
 *   creation, never per call)
 * @see Ray Serve `@serve.batch` and its tracing (Ray pull request 61230, https://github.com/ray-project/ray/pull/61230), which links only the first request
 * @example
 * const embed = batch(async (texts: string[]) => model.embed(texts), { maxBatchSize: 8, batchWaitTimeoutMs: 5 });
 * const vector = await embed('hello');
 */
export function batch<T, R>(handler: BatchHandler<T, R>, options: BatchOptions = {}): (item: T) => Promise<R> {
  if (typeof handler !== 'function') throw new TypeError(`batch(handler): handler must be a function, got ${typeof handler}`);
  const maxBatchSize = option(options, 'maxBatchSize', 10, true);
  const waitMs = option(options, 'batchWaitTimeoutMs', 10, false);
  const maxConcurrent = option(options, 'maxConcurrentBatches', 1, true);
  const name = options.name ?? (handler.name || 'batch');

  const queue = new BatchQueue<BatchCall<T, R>>({ maxBatchSize, waitMs, maxConcurrent }, (calls, finished) => {
    void runBatch(handler, name, calls, finished);
  });
  const call = (item: T): Promise<R> => {
    const callerCtx = context.active();
    const span = getApiTracer().startSpan(name, { kind: SpanKind.INTERNAL }, callerCtx);
    return new Promise<R>((resolve, reject) => {
      queue.push({ item, span, ctx: trace.setSpan(callerCtx, span), enqueuedAt: performance.now(), due: false, resolve, reject });
    });
  };
  Object.defineProperty(call, 'name', { value: name, configurable: true });
  return call;
}

function option(options: BatchOptions, key: 'maxBatchSize' | 'batchWaitTimeoutMs' | 'maxConcurrentBatches', fallback: number, integer: boolean): number {
  const value = options[key];
  if (value === undefined) return fallback;
  const ok = typeof value === 'number' && (integer ? Number.isInteger(value) && value >= 1 : Number.isFinite(value) && value >= 0);
  if (!ok) throw new RangeError(`batch(): ${key} must be ${integer ? 'an integer ≥ 1' : 'a finite number of ms ≥ 0'}, got ${String(value)}`);
  return value;
}
