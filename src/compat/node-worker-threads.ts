/**
 * Node.js internal: the dispatch every message of a `MessagePort` goes through.
 * - Relies on: `kHybridDispatch = Symbol.for('nodejs.internal.kHybridDispatch')` (lib/internal/event_target.js);
 *   `emitMessage` (the C++ → JS entry of every port, lib/internal/per_context/messageport.js) and
 *   `NodeEventTarget#emit` both call `port[kHybridDispatch](data, type, event)`, so an own property there sees each
 *   message before any listener, however it was added (`on`, `once`, `addEventListener`, `onmessage`).
 * - Since: MessagePort became a `NodeEventTarget` (Node.js 15; present in every Node.js tracehook supports, 20 to 26).
 * - When it is gone: {@link hybridDispatchOf} returns undefined; the patch helper then logs at DEBUG and leaves the
 *   port alone: a worker's messages from its parent, and pool tasks, run outside their sender's trace.
 * Used by src/workers/worker-threads-worker.ts and src/workers/pool-worker.ts; test/unit/compat.test.mjs.
 */

/** Node.js's own key (a `Symbol.for`, so the same symbol Node.js uses). */
export const kHybridDispatch = Symbol.for('nodejs.internal.kHybridDispatch');

/** `port[kHybridDispatch]`: called with the message's data, the event type (`'message'`) and no event. */
export type HybridDispatch = (this: unknown, data: unknown, type: string, event: unknown) => unknown;

/** A `MessagePort` as seen through {@link kHybridDispatch}. */
export type HybridDispatchPort = import('node:worker_threads').MessagePort & { [kHybridDispatch]?: HybridDispatch };

/** `port[kHybridDispatch]` (own or inherited), or undefined when `port` has none (Node.js changed it). Never throws. */
export function hybridDispatchOf(port: unknown): HybridDispatch | undefined {
  if (typeof port !== 'object' || port === null) return undefined;
  const dispatch = (port as { [kHybridDispatch]?: unknown })[kHybridDispatch];
  return typeof dispatch === 'function' ? (dispatch as HybridDispatch) : undefined;
}
