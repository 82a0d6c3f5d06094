import { context, trace } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { types } from 'node:util';
import { wrapAsyncGenerator, wrapGenerator } from './span-generator.js';
import { endSpan, markSpanError } from './span-error.js';

/**
 * Runs `fn` with `span` current (a new context value over `parentCtx`; the caller's value is
 * restored when `context.with` returns, on every path) and ends `span` when `fn`'s work is done:
 * - a thrown error: status ERROR, exception event, span ended, error rethrown unchanged;
 * - a native Promise: ended when it settles; the caller gets a promise chained on it that settles
 *   with the same value or error, after the span ended (a rejection nobody handles still surfaces
 *   as an unhandled rejection);
 * - a generator or async generator object: ended when it is exhausted, `return()`ed or throws,
 *   and each step runs inside the span's context;
 * - anything else (including non-native thenables, whose `then` may have side effects): ended at
 *   once, the value returned as is.
 */
export function runInSpan<R>(span: Span, parentCtx: Context, fn: () => R): R {
  const ctx = trace.setSpan(parentCtx, span);
  let result: R;
  try {
    result = context.with(ctx, fn);
  } catch (err) {
    markSpanError(span, err);
    endSpan(span);
    throw err;
  }
  return settle(span, ctx, result);
}

function settle<R>(span: Span, ctx: Context, result: R): R {
  if (types.isPromise(result)) {
    return (result as Promise<unknown>).then(
      (value) => {
        endSpan(span);
        return value;
      },
      (err: unknown) => {
        markSpanError(span, err);
        endSpan(span);
        throw err;
      },
    ) as R;
  }
  if (types.isGeneratorObject(result)) {
    const gen: object = result;
    return (Symbol.asyncIterator in gen ? wrapAsyncGenerator(gen as AsyncGenerator, span, ctx) : wrapGenerator(gen as Generator, span, ctx)) as R;
  }
  endSpan(span);
  return result;
}
