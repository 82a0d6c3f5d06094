import { EventEmitter } from 'node:events';
import type { Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { asyncLocalStorageOf } from '../compat/otel-context.js';

/**
 * OpenTelemetry's `AsyncLocalStorageContextManager` whose `with` and bound functions put fewer frames on the app's
 * stacks: an app callback an instrumentation bound to a context (an HTTP client's `'response'` listener, a pg query
 * callback) ran under four frames of the manager's (the bound wrapper, `with`, AsyncLocalStorage's `run` and an
 * arrow function), each pushing one of the app's frames off a stack printed with the default
 * `Error.stackTraceLimit` of 10; it now runs under one, the bound wrapper. `with` adds one frame instead of two.
 *
 * Both enter the context with AsyncLocalStorage's `enterWith` and put the previous value back on every path, as `run`
 * does; unlike `run` on Node.js 24+, a value the callback entered in another AsyncLocalStorage stays entered after it
 * returns, as it does untraced. Event emitters are bound as the base class binds them.
 * @see @opentelemetry/context-async-hooks, AbstractAsyncHooksContextManager#bind
 */
export class TracehookContextManager extends AsyncLocalStorageContextManager {
  // The base class makes its AsyncLocalStorage in its constructor and keeps it: looked up once, not per call.
  private readonly storage = asyncLocalStorageOf(this);

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const storage = this.storage;
    if (storage === undefined) return super.with(ctx, fn, thisArg, ...args);
    const previous = storage.getStore();
    storage.enterWith(ctx);
    try {
      return Reflect.apply(fn, thisArg, args);
    } finally {
      storage.enterWith(previous as Context);
    }
  }

  override bind<T>(ctx: Context, target: T): T {
    const storage = this.storage;
    if (typeof target !== 'function' || target instanceof EventEmitter || storage === undefined) return super.bind(ctx, target);
    // The same steps as `with`, inlined: a call to `with` would be a second frame.
    const contextWrapper = function (this: unknown) {
      const previous = storage.getStore();
      storage.enterWith(ctx);
      try {
        return Reflect.apply(target, this, arguments);
      } finally {
        storage.enterWith(previous as Context);
      }
    };
    Object.defineProperty(contextWrapper, 'length', { enumerable: false, configurable: true, writable: false, value: target.length });
    return contextWrapper as T;
  }
}
