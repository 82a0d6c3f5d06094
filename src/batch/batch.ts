import { context, SpanKind, trace } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { warnOnce } from '../diag/logger.js';
import { endSpan, markSpanError } from '../context/span-error.js';
import { getApiTracer } from '../context/tracer.js';
import { BATCH_INDEX_ATTRIBUTE, BATCH_SIZE_ATTRIBUTE, BATCH_WAIT_MS_ATTRIBUTE } from './batch-attributes.js';
import { startLinkedSpan } from './start-batch-span.js';

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

  interface Entry {
    item: T;
    span: Span;
    ctx: Context;
    enqueuedAt: number;
    due: boolean;
    resolve: (value: R) => void;
    reject: (err: unknown) => void;
  }
  const queue: Entry[] = [];
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerFor: Entry | undefined;

  function schedule(): void {
    while (queue.length > 0 && running < maxConcurrent) {
      const oldest = queue[0];
      if (queue.length < maxBatchSize && !oldest.due) {
        if (timerFor !== oldest) arm(oldest);
        return;
      }
      void run(queue.splice(0, maxBatchSize));
    }
    if (queue.length === 0) disarm();
  }

  // A partial batch only ever runs from this timer (or after a batch ends), never inside a caller's
  // call, so callers of the same tick share a batch even with a 0 ms wait.
  function arm(entry: Entry): void {
    disarm();
    timerFor = entry;
    timer = setTimeout(() => {
      timer = timerFor = undefined;
      entry.due = true;
      schedule();
    }, Math.max(0, Math.ceil(entry.enqueuedAt + waitMs - performance.now())));
  }

  function disarm(): void {
    if (timer) clearTimeout(timer);
    timer = timerFor = undefined;
  }

  async function run(entries: Entry[]): Promise<void> {
    running++;
    const { span, parent } = startLinkedSpan({ name: `${name} batch` }, entries.map((e) => e.ctx));
    const startedAt = performance.now();
    const batchLink = { context: span.spanContext() };
    entries.forEach((e, index) => {
      e.span.setAttributes({ [BATCH_INDEX_ATTRIBUTE]: index, [BATCH_SIZE_ATTRIBUTE]: entries.length, [BATCH_WAIT_MS_ATTRIBUTE]: startedAt - e.enqueuedAt });
      e.span.addLink(batchLink);
    });
    try {
      const results: unknown = await context.with(trace.setSpan(parent, span), () => handler(entries.map((e) => e.item)));
      if (!Array.isArray(results) || results.length !== entries.length) {
        const err = new TypeError(`batch(${name}): the handler returned ${describe(results)} for ${entries.length} items; expected an array of ${entries.length} results in item order`);
        // The same handler bug on every batch is one problem with a running count.
        warnOnce('batch', `results:${name}`, err.message);
        throw err;
      }
      endSpan(span);
      entries.forEach((e, index) => settle(e, results[index]));
    } catch (err) {
      markSpanError(span, err);
      endSpan(span);
      for (const e of entries) fail(e, err);
    } finally {
      running--;
      schedule();
    }
  }

  function settle(entry: Entry, result: unknown): void {
    if (result instanceof Error) return fail(entry, result);
    endSpan(entry.span);
    entry.resolve(result as R);
  }

  function fail(entry: Entry, err: unknown): void {
    markSpanError(entry.span, err);
    endSpan(entry.span);
    entry.reject(err);
  }

  const call = (item: T): Promise<R> => {
    const callerCtx = context.active();
    const span = getApiTracer().startSpan(name, { kind: SpanKind.INTERNAL }, callerCtx);
    return new Promise<R>((resolve, reject) => {
      queue.push({ item, span, ctx: trace.setSpan(callerCtx, span), enqueuedAt: performance.now(), due: false, resolve, reject });
      schedule();
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

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : typeof value;
}
