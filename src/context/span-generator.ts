import { context } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { endSpan, markSpanError } from './span-error.js';

type Method = 'next' | 'return' | 'throw';

// %IteratorPrototype% and %AsyncIteratorPrototype%: the wrappers inherit `[Symbol.iterator]` /
// `[Symbol.asyncIterator]` (and, on runtimes that have them, the iterator helpers) from them.
const ITERATOR_PROTOTYPE: object = Object.getPrototypeOf(Object.getPrototypeOf((function* () {})()));
const ASYNC_ITERATOR_PROTOTYPE: object = Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})()));

/** Ends `span` on the first call only, ERROR when `failed`: a generator can end several ways. */
function finisher(span: Span): (failed: boolean, err?: unknown) => void {
  let finished = false;
  return (failed, err) => {
    if (finished) return;
    finished = true;
    if (failed) markSpanError(span, err);
    endSpan(span);
  };
}

/**
 * Wraps a generator so that each `next`/`return`/`throw` runs inside `ctx` (the span's context),
 * and `span` ends exactly once: when a step reports `done`, or a step throws (status ERROR).
 * Calls are forwarded as they come; the underlying generator keeps its own semantics.
 */
export function wrapGenerator<T, R, N>(gen: Generator<T, R, N>, span: Span, ctx: Context): Generator<T, R, N> {
  const finish = finisher(span);
  const step = (method: Method, arg: unknown): IteratorResult<T, R> => {
    let result: IteratorResult<T, R>;
    try {
      result = context.with(ctx, () => (gen[method] as (a: unknown) => IteratorResult<T, R>).call(gen, arg));
    } catch (err) {
      finish(true, err);
      throw err;
    }
    if (result.done) finish(false);
    return result;
  };
  const wrapper = Object.create(ITERATOR_PROTOTYPE) as Generator<T, R, N>;
  wrapper.next = (...args: [] | [N]) => step('next', args[0]);
  wrapper.return = (value: R) => step('return', value);
  wrapper.throw = (err: unknown) => step('throw', err);
  return wrapper;
}

/**
 * The async counterpart of {@link wrapGenerator}: each step starts inside `ctx` (so the body's
 * awaits continue in it), and `span` ends when a step resolves `done` or rejects.
 */
export function wrapAsyncGenerator<T, R, N>(gen: AsyncGenerator<T, R, N>, span: Span, ctx: Context): AsyncGenerator<T, R, N> {
  const finish = finisher(span);
  const step = (method: Method, arg: unknown): Promise<IteratorResult<T, R>> => {
    let pending: Promise<IteratorResult<T, R>>;
    try {
      pending = context.with(ctx, () => (gen[method] as (a: unknown) => Promise<IteratorResult<T, R>>).call(gen, arg));
    } catch (err) {
      // Native async generators never throw synchronously; a hand-made one might.
      finish(true, err);
      return Promise.reject(err);
    }
    return pending.then(
      (result) => {
        if (result.done) finish(false);
        return result;
      },
      (err: unknown) => {
        finish(true, err);
        throw err;
      },
    );
  };
  const wrapper = Object.create(ASYNC_ITERATOR_PROTOTYPE) as AsyncGenerator<T, R, N>;
  wrapper.next = (...args: [] | [N]) => step('next', args[0]);
  wrapper.return = (value: R | PromiseLike<R>) => step('return', value);
  wrapper.throw = (err: unknown) => step('throw', err);
  return wrapper;
}
