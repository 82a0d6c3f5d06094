/**
 * Library internals of piscina and tinypool: their `TaskInfo`.
 * - Relies on: each task is a `TaskInfo extends AsyncResource`, constructed inside `pool.run()` in the caller's
 *   context with the resource type `Piscina.Task` / `Tinypool.Task`, with a numeric `taskId`; `releaseTask()` is
 *   called as the task is posted to a worker (`{ task, taskId, … }` on a MessagePort); `done(err, result)` when it
 *   settles, or is dropped (aborted, pool destroyed).
 * - Since: piscina 1.x and tinypool 0.x (a fork of piscina); checked against the versions in devDependencies.
 * - When it is gone ({@link poolOfTaskType} never matches, or {@link hasTaskInfoMethods} is false): `pool.run()`
 *   starts no PRODUCER span and tasks run in their worker without the caller's trace; nothing fails.
 * Used by src/workers/pool-main.ts; test/unit/compat.test.mjs.
 */
import type { PoolName } from '../workers/protocol.js';

/** The `AsyncResource` type of each pool's `TaskInfo`. */
export const POOL_TASK_TYPES: Readonly<Record<string, PoolName>> = { 'Piscina.Task': 'piscina', 'Tinypool.Task': 'tinypool' };

/** The pool whose `TaskInfo` uses AsyncResource type `type`, or undefined. */
export function poolOfTaskType(type: unknown): PoolName | undefined {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(POOL_TASK_TYPES, type) ? POOL_TASK_TYPES[type] : undefined;
}

/** Whether a `TaskInfo` prototype has the `releaseTask()` and `done()` tracehook wraps. */
export function hasTaskInfoMethods(prototype: unknown): boolean {
  const p = prototype as { releaseTask?: unknown; done?: unknown } | null | undefined;
  return typeof p?.releaseTask === 'function' && typeof p.done === 'function';
}
