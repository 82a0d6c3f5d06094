/**
 * OpenTelemetry JS internal: the `AsyncLocalStorage` of `AsyncLocalStorageContextManager`
 * (@opentelemetry/context-async-hooks), and the API's registered context manager.
 * - Relies on: `ContextAPI#_getContextManager()` (@opentelemetry/api) and the manager's `_asyncLocalStorage`, with
 *   `enterWith(ctx)` and `getStore()`.
 * - Since: api 1.0; `_asyncLocalStorage` since `AsyncLocalStorageContextManager` was added to context-async-hooks;
 *   checked against the version in dependencies.
 * - When it is gone ({@link asyncLocalStorageOf} returns undefined): a process or worker started by a traced parent
 *   runs its top level without the parent's trace where the manager has no `attach()` (and, on Node.js 24+ under
 *   `--import`, possibly even with it); said at DEBUG level. Spans are still made, as new traces.
 * Used by src/workers/startup-context.ts, src/context/context-storage.ts; test/unit/compat.test.mjs.
 */
import type { Context } from '@opentelemetry/api';

/** The parts of a context manager that tracehook uses to enter a context for the rest of a synchronous run. */
export interface EnteringContextManager {
  attach?(ctx: Context): unknown;
  active?(): Context;
  _asyncLocalStorage?: unknown;
}

/** The `AsyncLocalStorage` of an AsyncLocalStorage-based context manager, as tracehook uses it. */
export interface ContextStorage {
  enterWith(ctx: Context): void;
  getStore(): Context | undefined;
}

/** The context manager registered with `api` (`context` of @opentelemetry/api), or undefined. Never throws. */
export function contextManagerOf(api: unknown): EnteringContextManager | undefined {
  try {
    return (api as { _getContextManager?(): EnteringContextManager })._getContextManager?.();
  } catch {
    return undefined;
  }
}

/** `manager._asyncLocalStorage` when it has `enterWith` and `getStore`, else undefined. */
export function asyncLocalStorageOf(manager: unknown): ContextStorage | undefined {
  const storage = (manager as EnteringContextManager | null | undefined)?._asyncLocalStorage as Partial<ContextStorage> | undefined;
  return typeof storage?.enterWith === 'function' && typeof storage.getStore === 'function' ? (storage as ContextStorage) : undefined;
}
