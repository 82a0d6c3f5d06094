import { context } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { asyncLocalStorageOf, contextManagerOf } from '../compat/otel-context.js';
import type { ContextStorage } from '../compat/otel-context.js';

/**
 * Makes `ctx` the active context through the registered manager's AsyncLocalStorage (`enterWith`), for a caller
 * that runs the code meant to see it itself and then calls the returned function, on every path, to put the
 * previous value back: `context.with` without a frame of its own on the app's stack (the API's `with`, the
 * manager's and AsyncLocalStorage's `run` add three), so an error thrown in that code has the stack it has untraced
 * but for the caller's frame. Unlike `run`, other AsyncLocalStorage values entered meanwhile stay entered, as they
 * do untraced.
 * @returns the function that restores the previous context, or undefined when the registered context manager is
 *   not AsyncLocalStorage-based (then use `context.with`)
 */
export function swapContext(ctx: Context): (() => void) | undefined {
  const storage = contextStorage();
  if (storage === undefined) return undefined;
  const previous = storage.getStore();
  storage.enterWith(ctx);
  return () => storage.enterWith(previous as Context);
}

/**
 * The registered context manager's AsyncLocalStorage, for a caller that enters a context itself (see
 * {@link swapContext}); undefined when the manager is not AsyncLocalStorage-based (then use `context.with`).
 */
export function contextStorage(): ContextStorage | undefined {
  return asyncLocalStorageOf(contextManagerOf(context));
}
