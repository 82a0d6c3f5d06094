import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { endSpan, markSpanError } from '../context/span-error.js';
import type { Incoming } from './messaging-spans.js';
import { startProcess } from './messaging-spans.js';
import type { PoolName, PoolTaskMessage } from './protocol.js';
import { CONTROL, isPoolResponse, isPoolTaskMessage, POOL_CARRIER_KEY } from './protocol.js';
import { enterContext } from './startup-context.js';
import { acknowledgeFlush, flushSpans } from './worker-threads-worker.js';

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
 * - before the worker parks in `Atomics.wait` for the next task it flushes its spans and marks
 *   itself idle, so neither `terminate()` nor the process's exit has to wake it.
 */

const kHybridDispatch = Symbol.for('nodejs.internal.kHybridDispatch');

type Port = import('node:worker_threads').MessagePort & { [kHybridDispatch]?: (data: unknown, type: string, event: unknown) => unknown };

interface PoolWorkerState {
  pool: PoolName;
  control: Int32Array | undefined;
  /** CONSUMER spans of tasks running in this worker, by task id. */
  running: Map<number, Incoming>;
  /** Spans ended since the last flush. */
  dirty: boolean;
}

let state: PoolWorkerState | undefined;
const taskPorts = new WeakSet<object>();

/**
 * Installs the pool hooks of this worker thread. The caller makes ES-module named imports see the
 * patched `receiveMessageOnPort` (`syncBuiltinESMExports`).
 */
export function installPoolWorker(pool: PoolName, control: Int32Array | undefined): void {
  if (state !== undefined) return;
  state = { pool, control, running: new Map(), dirty: false };
  const wt = require('node:worker_threads') as typeof import('node:worker_threads');
  const receive = wt.receiveMessageOnPort;
  wt.receiveMessageOnPort = function receiveMessageOnPort(port: unknown) {
    const received = receive(port as never);
    if (received !== undefined && taskPorts.has(port as object) && isPoolTaskMessage(received.message)) {
      const incoming = begin(received.message);
      enterContext(incoming?.context ?? ROOT_CONTEXT);
    }
    return received;
  } as typeof receive;

  const wait = Atomics.wait;
  Atomics.wait = function wait_(typedArray: Int32Array, index: number, value: number, timeout?: number) {
    let parks = false;
    try {
      parks = Atomics.load(typedArray, index) === value;
      if (parks) park();
    } catch {
      // Invalid arguments: the original call below throws what it always threw.
    }
    try {
      return Reflect.apply(wait, Atomics, arguments);
    } finally {
      if (parks && state?.control !== undefined) Atomics.store(state.control, CONTROL.IDLE, 0);
    }
  } as typeof Atomics.wait;
}

/** Called with the pool's start-up message (`{ port, sharedBuffer, filename, … }`). */
export function onPoolStartup(_pool: PoolName, message: unknown): void {
  const port = (message as { port?: unknown } | null)?.port as Port | undefined;
  const { MessagePort } = require('node:worker_threads') as typeof import('node:worker_threads');
  if (!(port instanceof MessagePort) || taskPorts.has(port)) return;
  taskPorts.add(port);

  const dispatch = port[kHybridDispatch];
  if (typeof dispatch === 'function') {
    port[kHybridDispatch] = function dispatchTask(this: unknown, data: unknown, type: string, event: unknown) {
      if (type !== 'message' || event !== undefined || !isPoolTaskMessage(data)) return dispatch.call(this, data, type, event);
      const incoming = begin(data);
      return context.with(incoming?.context ?? ROOT_CONTEXT, () => dispatch.call(this, data, type, event));
    };
  }

  const post = port.postMessage;
  Object.defineProperty(port, 'postMessage', {
    configurable: true,
    writable: true,
    value: function postMessage(this: unknown, response: unknown) {
      if (state !== undefined && state.running.size > 0 && isPoolResponse(response)) end(response.taskId, response.error);
      return Reflect.apply(post, this, arguments);
    },
  });
}

/** Starts the CONSUMER span of a task that carries a context. */
function begin(message: PoolTaskMessage): Incoming | undefined {
  const carried = message[POOL_CARRIER_KEY];
  if (state === undefined || carried === undefined) return undefined;
  const destination = typeof message.filename === 'string' ? message.filename : undefined;
  const incoming = startProcess(state.pool, destination, 'run', carried.carrier, carried.id);
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

/** About to block until the next task: flush what ended (span files are written at once) and say so. */
function park(): void {
  if (state === undefined) return;
  if (state.dirty) {
    state.dirty = false;
    void flushSpans(1000);
  }
  if (state.control !== undefined) {
    Atomics.store(state.control, CONTROL.IDLE, 1);
    acknowledgeFlush(state.control);
  }
}
