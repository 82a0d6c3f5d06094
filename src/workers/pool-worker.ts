import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { endSpan, markSpanError } from '../context/span-error.js';
import type { Dispatch, Incoming } from './messaging-spans.js';
import { callInContext, startProcess } from './messaging-spans.js';
import type { PoolName, PoolTaskMessage } from './protocol.js';
import { CONTROL, envelopeCarrier, envelopeId, isHeaderOf, isPoolResponse, isPoolTaskMessage, POOL_CARRIER_KEY } from './protocol.js';
import { wrap } from '../patch/wrap.js';
import { kHybridDispatch } from '../compat/node-worker-threads.js';
import type { HybridDispatchPort } from '../compat/node-worker-threads.js';
import { enterContext } from './startup-context.js';
import { acknowledgeFlush, flushSpansNow, unflushedSpans } from './worker-threads-worker.js';

/**
 * The worker side of piscina and tinypool. Their worker gets a task port in its start-up message
 * and reads tasks from it two ways: `receiveMessageOnPort(port)` after an `Atomics.wait` wake-up
 * (the default: no `'message'` event ever fires), or a `'message'` listener. Both are covered:
 * - a task message starts the CONSUMER span `<pool> process`, child of the caller's PRODUCER span
 *   (or, without a carrier, nothing, on an empty trace stack). On the event path the dispatch runs
 *   inside it; on the `receiveMessageOnPort` path it is entered (`enterWith`) just before the pool
 *   calls its task function, which then runs, awaits included, inside it;
 * - the response posted on that port (`{ taskId, result, error }`) ends the span, ERROR when the
 *   task function threw;
 * - a worker parked in `Atomics.wait` for the next task runs no event loop: it cannot serve flush
 *   requests, and exporters cannot finish there. While it holds ended spans it parks in slices of
 *   {@link IDLE_FLUSH_MS}, flushing synchronously when a flush request waits (and, for span
 *   files, once idle for a slice); with nothing left to flush it marks itself idle and parks as
 *   the pool asked: `terminate()` and the process's exit then skip it, or wait at most a slice.
 */

type Port = HybridDispatchPort;

/** How long a pool worker with ended spans stays parked before it flushes them, ms. */
const IDLE_FLUSH_MS = 50;

interface PoolWorkerState {
  pool: PoolName;
  /** The secret of the thread that started this worker: carriers hold it. */
  secret: string;
  control: Int32Array | undefined;
  /** CONSUMER spans of tasks running in this worker, by task id. */
  running: Map<number, Incoming>;
  /** Spans ended since the last flush. */
  dirty: boolean;
  /** The exporter writes span files: flushing once idle is cheap (no synchronous network send). */
  cheapFlush: boolean;
}

let state: PoolWorkerState | undefined;
const taskPorts = new WeakSet<object>();

/**
 * Installs the pool hooks of this worker thread. The caller makes ES-module named imports see the
 * patched `receiveMessageOnPort` (`syncBuiltinESMExports`).
 */
export function installPoolWorker(pool: PoolName, secret: string, control: Int32Array | undefined, cheapFlush: boolean): void {
  if (state !== undefined) return;
  state = { pool, secret, control, running: new Map(), dirty: false, cheapFlush };
  const wt = require('node:worker_threads') as typeof import('node:worker_threads');
  const receiveSite = { component: 'workers', id: 'pool-worker.receiveMessageOnPort', otherwise: "pool tasks run outside their caller's trace" };
  wrap(
    wt,
    'receiveMessageOnPort',
    receiveSite,
    (receive) =>
      function receiveMessageOnPort(port: unknown) {
        const received = receive(port as never);
        if (received !== undefined && taskPorts.has(port as object) && isPoolTaskMessage(received.message)) {
          const incoming = begin(received.message);
          if (incoming !== undefined) enterContext(incoming.context);
          else if (context.active() !== ROOT_CONTEXT) enterContext(ROOT_CONTEXT);
        }
        return received;
      } as typeof receive,
  );

  const waitSite = { component: 'workers', id: 'pool-worker.Atomics.wait', otherwise: 'a parked pool worker neither flushes nor answers flush requests' };
  wrap(
    Atomics,
    'wait',
    waitSite,
    (wait) =>
      function waitFlushingEndedSpans(typedArray: Int32Array, index: number, value: number, timeout?: number) {
        let parks = false;
        try {
          parks = state !== undefined && Atomics.load(typedArray, index) === value;
        } catch {
          // Invalid arguments: the original call below throws what it always threw.
        }
        if (!parks) return Reflect.apply(wait, Atomics, arguments);
        let left = timeout === undefined || Number.isNaN(Number(timeout)) ? Infinity : Number(timeout);
        // Parked with ended spans: wait in slices, so that a flush request (terminate(), the process's
        // exit) is served within a slice, and span files are written once idle for a slice. Not at
        // every park: a busy worker parks between all its tasks, and a flush per task would cost more
        // than the task (span files are also written whenever a full line is waiting).
        while (state!.dirty || unflushedSpans() > 0) {
          const slice = Math.min(left, IDLE_FLUSH_MS);
          const result = wait(typedArray, index, value, slice);
          if (result !== 'timed-out' || left <= slice) return result;
          left -= slice;
          if (state!.cheapFlush || flushRequested()) {
            state!.dirty = false;
            flushSpansNow();
          }
        }
        markIdle();
        try {
          return left === Infinity ? wait(typedArray, index, value) : wait(typedArray, index, value, left);
        } finally {
          if (state?.control !== undefined) Atomics.store(state.control, CONTROL.IDLE, 0);
        }
      } as typeof Atomics.wait,
  );
}

/** Called with the pool's start-up message (`{ port, sharedBuffer, filename, … }`). */
export function onPoolStartup(_pool: PoolName, message: unknown): void {
  const port = (message as { port?: unknown } | null)?.port as Port | undefined;
  const { MessagePort } = require('node:worker_threads') as typeof import('node:worker_threads');
  if (!(port instanceof MessagePort) || taskPorts.has(port)) return;
  taskPorts.add(port);

  const dispatchSite = { component: 'workers', id: 'pool-worker.taskPort[kHybridDispatch]', otherwise: "pool tasks read by a 'message' listener run outside their caller's trace" };
  wrap(
    port,
    kHybridDispatch,
    dispatchSite,
    (dispatch) =>
      function dispatchTask(this: unknown, data: unknown, type: string, event: unknown) {
        if (type !== 'message' || event !== undefined || !isPoolTaskMessage(data)) return dispatch!.call(this, data, type, event);
        const incoming = begin(data);
        return callInContext(incoming?.context ?? ROOT_CONTEXT, dispatch as Dispatch, this, data, type);
      },
  );

  const postSite = { component: 'workers', id: 'pool-worker.taskPort.postMessage', otherwise: 'CONSUMER spans of pool tasks never end' };
  wrap(
    port,
    'postMessage',
    postSite,
    (post) =>
      function postMessage(this: unknown, response: unknown) {
        if (state !== undefined && state.running.size > 0 && isPoolResponse(response)) end(response.taskId, response.error);
        return Reflect.apply(post, this, arguments);
      } as typeof post,
  );
}

/** Starts the CONSUMER span of a task that carries a context. */
function begin(message: PoolTaskMessage): Incoming | undefined {
  const carried = message[POOL_CARRIER_KEY];
  if (state === undefined || !isHeaderOf(carried, state.secret)) return undefined;
  const destination = typeof message.filename === 'string' ? message.filename : undefined;
  const incoming = startProcess(state.pool, destination, 'run', envelopeCarrier(carried, state.secret), envelopeId(carried, state.secret));
  state.running.set(message.taskId, incoming);
  return incoming;
}

function end(taskId: number, error: unknown): void {
  const incoming = state?.running.get(taskId);
  if (state === undefined || incoming === undefined) return;
  state.running.delete(taskId);
  if (error !== null && error !== undefined) markSpanError(incoming.span, error);
  endSpan(incoming.span);
  state.dirty = true;
}

function flushRequested(): boolean {
  const control = state?.control;
  return control !== undefined && Atomics.load(control, CONTROL.REQUEST) !== Atomics.load(control, CONTROL.ACK);
}

/** Blocking until the next task with everything flushed: say so, and answer a waiting flush request. */
function markIdle(): void {
  const control = state?.control;
  if (control === undefined) return;
  Atomics.store(control, CONTROL.IDLE, 1);
  // Notify only when a flush request waits: every notify takes V8's process-wide futex lock.
  if (flushRequested()) acknowledgeFlush(control);
}
