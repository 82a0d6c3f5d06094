import type { Outgoing } from './messaging-spans.js';
import { endSend, setSendDestination, startSend } from './messaging-spans.js';
import type { PoolName, PoolTaskCarrier } from './protocol.js';
import { CHANNEL_SECRET, envelopeHeader, POOL_CARRIER_KEY } from './protocol.js';
import { isPatched, wrap } from '../patch/wrap.js';
import { hasTaskInfoMethods, poolOfTaskType } from '../compat/pools.js';

/**
 * The caller side of piscina and tinypool (`pool.run(task)`), without hooking either package:
 * both represent a task by a `TaskInfo` that extends `AsyncResource` (type `Piscina.Task` /
 * `Tinypool.Task`), built inside `run()` in the caller's context, and hand it to a worker with
 * `postTask()`, which calls `taskInfo.releaseTask()` and then posts `{ task, taskId, … }` on a
 * MessagePort. So:
 * - `async_hooks.AsyncResource` becomes a subclass whose constructor, for those two types only,
 *   prepares the PRODUCER span `<pool> send` (child of the caller's span): its ids, carrier and start
 *   time are kept on the task, not a span (a task queued for long would keep a span alive, promoted to
 *   the old generation: GC pauses doubled);
 * - `releaseTask()` (the hand-over) records it, ended, and arms the carrier for the next post of that
 *   `taskId`; `done()` records it when the task never reached a worker (aborted, pool destroyed);
 * - `MessagePort.prototype.postMessage` adds the carrier to that internal message (never to the
 *   user's task); the pool's worker ignores unknown fields.
 * A task queued behind busy workers keeps its caller's context however late it is posted.
 */

const PRODUCER = Symbol('tracehook.pool.producer');
const PATCHED = Symbol('tracehook.pool.patched');
const ASYNC_RESOURCE_SITE = { component: 'workers', id: 'pools.async_hooks.AsyncResource', otherwise: 'pool.run() starts no PRODUCER span' };

interface TaskInfoLike {
  taskId?: unknown;
  filename?: unknown;
  [PRODUCER]?: Outgoing;
}

/** The carrier armed by `releaseTask()` for the post of one task. */
let armed: { taskId: unknown; value: PoolTaskCarrier } | undefined;

/** Installs the caller side of pools in this thread, but for {@link installPoolPorts}. Idempotent. */
export function installPoolMain(): void {
  const asyncHooks = require('node:async_hooks') as typeof import('node:async_hooks');
  if (isPatched(asyncHooks.AsyncResource, ASYNC_RESOURCE_SITE.id)) return;
  wrap(
    asyncHooks,
    'AsyncResource',
    ASYNC_RESOURCE_SITE,
    (Original) =>
      class AsyncResource extends Original {
        constructor(type: string, options?: ConstructorParameters<typeof Original>[1]) {
          super(type, options);
          const pool = poolOfTaskType(type);
          if (pool !== undefined) onTaskCreated(this as TaskInfoLike, pool, new.target.prototype as unknown as Record<PropertyKey, unknown>);
        }

        // Resources made by Node itself with the original class stay `instanceof AsyncResource`;
        // subclasses (the pools' TaskInfo) keep the ordinary check.
        static override [Symbol.hasInstance](value: unknown): boolean {
          return this === AsyncResource ? value instanceof Original : Function.prototype[Symbol.hasInstance].call(this, value);
        }
      },
  );
}

/** Installs the carrier on pools' task messages; needs node:worker_threads, so called once it is loaded. Idempotent. */
export function installPoolPorts(): void {
  const { MessagePort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const postSite = { component: 'workers', id: 'pools.MessagePort#postMessage', otherwise: "pool tasks reach their worker without the caller's trace" };
  wrap(
    MessagePort.prototype,
    'postMessage',
    postSite,
    (post) =>
      function postMessage(this: unknown, message: unknown, transfer?: unknown) {
        if (armed !== undefined && typeof message === 'object' && message !== null && (message as { taskId?: unknown }).taskId === armed.taskId) {
          (message as Record<string, unknown>)[POOL_CARRIER_KEY] = armed.value;
          armed = undefined;
        }
        return post.call(this, message, transfer as never);
      },
  );
}

function onTaskCreated(task: TaskInfoLike, pool: PoolName, prototype: Record<PropertyKey, unknown>): void {
  if (!Object.prototype.hasOwnProperty.call(prototype, PATCHED)) patchTaskInfo(prototype);
  // Without both methods (a pool release changed them; wrap() said so) a PRODUCER span would never end.
  if (!hasTaskInfoMethods(prototype)) return;
  const outgoing = startSend(pool, undefined, 'run');
  if (outgoing !== undefined) task[PRODUCER] = outgoing;
}

function patchTaskInfo(prototype: Record<PropertyKey, unknown>): void {
  Object.defineProperty(prototype, PATCHED, { value: true });
  const releaseSite = { component: 'workers', id: 'pools.TaskInfo#releaseTask', otherwise: 'pool tasks reach their worker without a carrier' };
  wrap(
    prototype,
    'releaseTask',
    releaseSite,
    (release) =>
      function releaseTask(this: TaskInfoLike) {
        const outgoing = this[PRODUCER];
        if (outgoing !== undefined) {
          this[PRODUCER] = undefined;
          if (typeof this.filename === 'string') setSendDestination(outgoing, this.filename);
          armed = { taskId: this.taskId, value: envelopeHeader(CHANNEL_SECRET, outgoing.carrier, outgoing.id) };
          endSend(outgoing);
        } else {
          armed = undefined;
        }
        return (release as (...args: unknown[]) => unknown).apply(this, arguments as unknown as unknown[]);
      },
  );
  const doneSite = { component: 'workers', id: 'pools.TaskInfo#done', otherwise: 'a task that never reached a worker keeps its PRODUCER span open' };
  wrap(
    prototype,
    'done',
    doneSite,
    (done) =>
      function endProducerSpanThenDone(this: TaskInfoLike, err: unknown) {
        const outgoing = this[PRODUCER];
        if (outgoing !== undefined) {
          this[PRODUCER] = undefined;
          endSend(outgoing, err === null ? undefined : err);
        }
        return (done as (...args: unknown[]) => unknown).apply(this, arguments as unknown as unknown[]);
      },
  );
}
