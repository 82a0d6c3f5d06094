import { context, isSpanContextValid, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { contextFromCarrier } from '../propagation/carrier-record.js';
import type { Carrier } from './protocol.js';
import { logDebug } from '../diag/logger.js';
import { wrap } from '../patch/wrap.js';
import type { EnteringContextManager } from '../compat/otel-context.js';
import { asyncLocalStorageOf, contextManagerOf } from '../compat/otel-context.js';

function contextManager(): EnteringContextManager | undefined {
  return contextManagerOf(context);
}

/**
 * Makes `ctx` the active context for the rest of the current synchronous execution and everything
 * it schedules (AsyncLocalStorage `enterWith`). Called by the preload, before the app's first line,
 * this makes the app's top level run inside `ctx` (seen from both `--import` and `--require`, ESM
 * and CommonJS entries, main thread and workers).
 * @returns false when the registered context manager cannot do it (one a startup hook replaced)
 */
export function enterContext(ctx: Context): boolean {
  try {
    const manager = contextManager();
    if (typeof manager?.attach === 'function') {
      manager.attach(ctx);
      return true;
    }
    const storage = asyncLocalStorageOf(manager);
    if (storage !== undefined) {
      storage.enterWith(ctx);
      return true;
    }
    logDebug('workers', 'the context manager has neither attach() nor _asyncLocalStorage.enterWith(): the app starts without its parent trace');
  } catch (err) {
    // A context manager we do not know: the app simply starts without a parent.
    logDebug('workers', `entering the parent trace failed (${(err as Error)?.message ?? err}): the app starts without it`);
  }
  return false;
}

/**
 * Makes `ctx` the context of every execution that has none of its own (no `context.with()` above
 * it): the app's top level and all it schedules, as {@link enterContext} from a synchronous
 * preload does. Needed where `AsyncLocalStorage` is built on `AsyncContextFrame` (the default
 * from Node.js 24; `--experimental-async-context-frame` on 22): the ESM loader awaits each
 * `--import` preload, and that await restores the loader's own frame, so an `enterWith` made
 * inside the preload never reaches the entry module. Executions that did set a context (even
 * `ROOT_CONTEXT`) keep it.
 * @returns false when the registered context manager is not AsyncLocalStorage-based
 */
function inheritByDefault(ctx: Context): boolean {
  try {
    const manager = contextManager();
    const storage = asyncLocalStorageOf(manager);
    if (manager === undefined || storage === undefined) {
      logDebug('workers', 'the context manager is not AsyncLocalStorage-based (no _asyncLocalStorage.getStore()): on Node.js 24+ the app may start without its parent trace');
      return false;
    }
    const getStore = storage.getStore.bind(storage);
    const site = { component: 'workers', id: 'context-manager.active', otherwise: 'on Node.js 24+ the app may start without its parent trace' };
    return wrap(
      manager as Required<Pick<EnteringContextManager, 'active'>>,
      'active',
      site,
      () =>
        function active(): Context {
          return getStore() ?? ctx;
        },
    );
  } catch (err) {
    logDebug('workers', `the parent trace is not made the default context (${(err as Error)?.message ?? err})`);
    return false;
  }
}

/**
 * Enters the context a parent handed over (a `TRACEPARENT` environment carrier, or a worker's
 * creation carrier), if it holds a valid span context: the app's top level, and what it
 * schedules, run inside it on every Node.js version.
 * @returns true when a context was entered
 */
export function enterStartupContext(carrier: Carrier | undefined): boolean {
  if (carrier === undefined) return false;
  const ctx = contextFromCarrier(carrier, ROOT_CONTEXT);
  const spanContext = trace.getSpanContext(ctx);
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return false;
  const entered = enterContext(ctx);
  return inheritByDefault(ctx) || entered;
}
