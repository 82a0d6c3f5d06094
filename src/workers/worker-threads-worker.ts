import { getRegisteredProvider } from '../provider/tracer-provider.js';
import { logDebug } from '../diag/logger.js';
import { wrap } from '../patch/wrap.js';
import { getPreloadState } from '../state.js';
import { endSend, markProcessError, runFresh, runProcess, startSend } from './messaging-spans.js';
import type { PoolName, WorkerEnvironmentData } from './protocol.js';
import { CONTROL, ENV_DATA_KEY, isEnvelope, makeEnvelope, PROTOCOL_VERSION, waitAsync } from './protocol.js';

/**
 * The worker side of worker_threads, installed by the preload in a worker thread before the app's
 * first line: `parentPort` listeners (`on`, `once`, `addEventListener`, `onmessage`) run each
 * message in the context it carries (else on an empty trace stack); `parentPort.postMessage()` from
 * a traced context sends an envelope when the parent unwraps them; the parent's flush requests are
 * served; the worker's top level runs in the context of the `new Worker()` call.
 */

/** `Symbol.for`: Node's own key (lib/internal/event_target.js) for the dispatch every message goes through. */
const kHybridDispatch = Symbol.for('nodejs.internal.kHybridDispatch');

type Dispatch = (this: unknown, data: unknown, type: string, event: unknown) => unknown;
type Listener = (...args: unknown[]) => unknown;
type PortLike = import('node:worker_threads').MessagePort & { [kHybridDispatch]?: Dispatch };

/**
 * Takes this worker's {@link WorkerEnvironmentData} and deletes it, so that workers the app starts
 * from here never inherit it.
 * @returns undefined when the parent is not instrumented
 */
export function takeEnvironmentData(): WorkerEnvironmentData | undefined {
  const wt = require('node:worker_threads') as typeof import('node:worker_threads');
  const data = wt.getEnvironmentData(ENV_DATA_KEY) as WorkerEnvironmentData | undefined;
  if (data !== undefined) wt.setEnvironmentData(ENV_DATA_KEY, undefined as never);
  return data?.v === PROTOCOL_VERSION ? data : undefined;
}

/**
 * Hooks `parentPort`. With `data` (an instrumented parent) messages to the parent carry context
 * and the flush hand-shake is served; a pool worker's port is left to {@link onPoolStartup}.
 * @param onPoolStartup - called with the pool's start-up message (it holds the task port)
 */
export function installWorkerSide(data: WorkerEnvironmentData | undefined, onPoolStartup?: (pool: PoolName, message: unknown) => void): void {
  const wt = require('node:worker_threads') as typeof import('node:worker_threads');
  const port = wt.parentPort as PortLike | null;
  if (port === null) return;
  if (data !== undefined) {
    trackEndedSpans(data.control);
    serveFlushRequests(data.control);
  }

  if (data?.pool !== undefined) {
    const pool = data.pool;
    let started = false;
    hookDispatch(port, (dispatch, message) => {
      if (!started && onPoolStartup !== undefined) {
        started = true;
        try {
          onPoolStartup(pool, message);
        } catch {
          // The pool runs untraced rather than not at all.
        }
      }
      return dispatch(message);
    });
    return;
  }

  const destination = data?.destination ?? process.argv[1] ?? '[worker]';
  // Envelopes come only from an instrumented parent, and hold its secret.
  const secret = data?.secret;
  if (secret !== undefined) unwrapSynchronousReceive(wt, port, secret);
  hookDispatch(port, (dispatch, message) => {
    if (secret !== undefined && isEnvelope(message, secret)) return runProcess('worker_threads', destination, 'message', message.carrier, message.id, () => dispatch(message.value));
    return runFresh(() => dispatch(message));
  });
  markListenerErrors(port);
  if (secret !== undefined) envelopeOutgoing(port, destination, secret);
}

/**
 * Routes every `'message'` dispatch of `port` through `around`. `emitMessage` (the C++ → JS entry
 * of every port) and `emit()` both call `port[kHybridDispatch]`, so an own property there sees
 * each message before any listener, whichever way the listener was added.
 */
function hookDispatch(port: PortLike, around: (dispatch: (data: unknown) => unknown, data: unknown) => unknown): void {
  const site = { component: 'workers', id: 'worker.parentPort[kHybridDispatch]', otherwise: "messages from the parent run outside the parent's trace" };
  wrap(port, kHybridDispatch, site, (original) => function dispatchMessage(this: unknown, data: unknown, type: string, event: unknown) {
    if (type !== 'message' || event !== undefined) return original!.call(this, data, type, event);
    return around((value) => original!.call(this, value, type, event), data);
  });
}

/**
 * `receiveMessageOnPort(parentPort)` takes a message without dispatching it: unwrap envelopes
 * there too (the value only: no event, so no CONSUMER span).
 */
function unwrapSynchronousReceive(wt: typeof import('node:worker_threads'), parentPort: PortLike, secret: string): void {
  const site = { component: 'workers', id: 'worker.receiveMessageOnPort', otherwise: "receiveMessageOnPort(parentPort) returns the parent's envelopes" };
  wrap(wt, 'receiveMessageOnPort', site, (receive) => function receiveMessageOnPort(port: unknown) {
    const received = receive(port as never);
    if (port === parentPort && received !== undefined && isEnvelope(received.message, secret)) return { message: received.message.value };
    return received;
  } as typeof receive);
}

/**
 * An EventTarget catches what a listener throws and re-throws it on the next tick, after the
 * CONSUMER span has ended: wrap `'message'` listeners to mark the span ERROR first. Removal maps
 * the app's function to its wrapper, so `off`/`removeEventListener` work as before.
 */
function markListenerErrors(port: PortLike): void {
  const wrappers = new WeakMap<Listener, Listener>();
  const wrapListener = (listener: Listener): Listener => {
    let wrapped = wrappers.get(listener);
    if (wrapped === undefined) {
      wrapped = function (this: unknown, ...args: unknown[]) {
        try {
          return listener.apply(this, args);
        } catch (err) {
          markProcessError(err);
          throw err;
        }
      };
      wrappers.set(listener, wrapped);
    }
    return wrapped;
  };
  const otherwise = "an error thrown by a 'message' listener leaves its CONSUMER span OK";
  wrap(port, 'addEventListener', { component: 'workers', id: 'worker.parentPort.addEventListener', otherwise }, (add) => function addEventListener(this: unknown, type: string, listener: unknown, options?: unknown) {
    const l = type === 'message' && typeof listener === 'function' ? wrapListener(listener as Listener) : listener;
    return Reflect.apply(add, this, arguments.length > 2 ? [type, l, options] : [type, l]);
  } as typeof add);
  wrap(port, 'removeEventListener', { component: 'workers', id: 'worker.parentPort.removeEventListener', otherwise }, (remove) => function removeEventListener(this: unknown, type: string, listener: unknown, options?: unknown) {
    const l = type === 'message' && typeof listener === 'function' ? (wrappers.get(listener as Listener) ?? listener) : listener;
    return Reflect.apply(remove, this, arguments.length > 2 ? [type, l, options] : [type, l]);
  } as typeof remove);
}

function envelopeOutgoing(port: PortLike, destination: string, secret: string): void {
  const site = { component: 'workers', id: 'worker.parentPort.postMessage', otherwise: "messages to the parent carry no trace" };
  wrap(port, 'postMessage', site, (post) => function postMessage(this: unknown, value: unknown, transferList?: unknown) {
    const outgoing = startSend('worker_threads', destination, 'postMessage');
    if (outgoing === undefined) return Reflect.apply(post, this, arguments);
    try {
      Reflect.apply(post, this, [makeEnvelope(secret, value, outgoing.carrier, outgoing.id), transferList]);
    } catch (err) {
      endSend(outgoing, err);
      throw err;
    }
    endSend(outgoing);
  } as typeof post);
}

/**
 * Hands every ended span of this thread to its exporter and has it written or sent before
 * returning, as at the process's `exit` (the preload's `synchronousExport` state: span files are written at
 * once, OTLP spans go through the synchronous exit sender). For a thread that is about to be
 * stopped, or to block where no later turn of its event loop will come. Never throws.
 */
export function flushSpansNow(): void {
  const provider = getRegisteredProvider();
  if (!provider?.forceFlush) return;
  if (holding !== undefined) {
    holding.ended = false;
    Atomics.store(holding.control, CONTROL.HOLDS, 0);
  }
  const state = getPreloadState();
  const previous = state.synchronousExport;
  state.synchronousExport = true;
  try {
    void provider.forceFlush().catch(() => undefined);
  } catch {
    // Nothing more can be done for these spans; the app must not notice.
  } finally {
    state.synchronousExport = previous;
  }
}

/**
 * Makes this worker thread's exporter write each export at once, instead of a line per turn of the
 * event loop: a worker may be stopped (`terminate()`) or parked by a pool in `Atomics.wait` with
 * lines still waiting for a turn that never comes, and a flush cannot reach lines an earlier
 * export already queued. Uses the preload's `synchronousExport` state, the one switch the file exporter has
 * for this; only for span files (an OTLP exporter would send every export through its exit path).
 */
export function exportSynchronously(): void {
  getPreloadState().synchronousExport = true;
}

/** Set while ended spans are tracked: whether one ended since the last flush. */
let holding: { control: Int32Array; ended: boolean } | undefined;

/**
 * Tells the parent, through `CONTROL.HOLDS`, whether this worker holds ended spans, so that
 * `terminate()` asks for a flush only then. Every ended span goes through the TracerProvider's
 * `_activeSpanProcessor.onEnd` (OpenTelemetry JS SDK 2.x, an internal of `BasicTracerProvider`
 * relied on here); with another provider the worker says it may always hold some.
 */
function trackEndedSpans(control: Int32Array): void {
  const provider = getRegisteredProvider() as { _activeSpanProcessor?: { onEnd: (span: unknown) => void } } | undefined;
  const state = { control, ended: false };
  const site = { component: 'workers', id: 'worker.TracerProvider._activeSpanProcessor.onEnd', otherwise: 'terminate() always asks this worker to flush' };
  const tracked = wrap(provider?._activeSpanProcessor, 'onEnd', site, (onEnd) => function onEndTracked(this: unknown, span: unknown) {
    if (!state.ended) {
      state.ended = true;
      Atomics.store(control, CONTROL.HOLDS, 1);
    }
    return onEnd.call(this, span);
  });
  if (tracked) holding = state;
  else Atomics.store(control, CONTROL.HOLDS, 1);
}

/** Marks every flush request so far served (the caller has flushed). */
export function acknowledgeFlush(control: Int32Array): void {
  Atomics.store(control, CONTROL.ACK, Atomics.load(control, CONTROL.REQUEST));
  Atomics.notify(control, CONTROL.ACK);
}

/**
 * Waits for flush requests with `Atomics.waitAsync` (no message on any port of the app's, and it
 * does not keep the worker alive), flushes synchronously (the worker is about to be stopped),
 * acknowledges.
 */
function serveFlushRequests(control: Int32Array): void {
  if (waitAsync === undefined) return;
  const waitFor = waitAsync;
  Atomics.store(control, CONTROL.READY, 1);
  const wait = (): void => {
    const waited = waitFor(control, CONTROL.REQUEST, Atomics.load(control, CONTROL.ACK));
    const serve = (): void => {
      flushSpansNow();
      acknowledgeFlush(control);
      wait();
    };
    if (waited.async) void waited.value.then(serve);
    else serve();
  };
  wait();
}
