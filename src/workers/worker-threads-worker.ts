import { adoptEpochAnchor } from '../provider/monotonic-clock.js';
import { getRegisteredProvider } from '../provider/tracer-provider.js';
import { wrap } from '../patch/wrap.js';
import { kHybridDispatch } from '../compat/node-worker-threads.js';
import type { HybridDispatchPort } from '../compat/node-worker-threads.js';
import { activeSpanProcessorOf } from '../compat/otel-sdk.js';
import { getPreloadState } from '../state.js';
import type { Dispatch } from './messaging-spans.js';
import { callFresh, callProcess, endSend, markProcessError, startSend } from './messaging-spans.js';
import type { PoolName, WorkerEnvironmentData } from './protocol.js';
import { CONTROL, ENV_DATA_KEY, ENVELOPE_KEY, envelopeCarrier, envelopeHeader, envelopeId, isEnvelope, makeEnvelope, PROTOCOL_VERSION, waitAsync } from './protocol.js';

/**
 * The worker side of worker_threads, installed by the preload in a worker thread before the app's
 * first line: `parentPort` listeners (`on`, `once`, `addEventListener`, `onmessage`) run each
 * message in the context it carries (else on an empty trace stack); `parentPort.postMessage()` from
 * a traced context sends an envelope when the parent unwraps them; the parent's flush requests are
 * served; the worker's top level runs in the context of the `new Worker()` call.
 */

type Listener = (...args: unknown[]) => unknown;
type PortLike = HybridDispatchPort;

/**
 * Takes this worker's {@link WorkerEnvironmentData} and deletes it, so that workers the app starts
 * from here never inherit it; span times of this thread take the parent's epoch anchor.
 * @returns undefined when the parent is not instrumented
 */
export function takeEnvironmentData(): WorkerEnvironmentData | undefined {
  const wt = require('node:worker_threads') as typeof import('node:worker_threads');
  const data = wt.getEnvironmentData(ENV_DATA_KEY) as WorkerEnvironmentData | undefined;
  if (data !== undefined) wt.setEnvironmentData(ENV_DATA_KEY, undefined as never);
  if (data?.v !== PROTOCOL_VERSION) return undefined;
  adoptEpochAnchor(data.epochAnchor);
  if (data.importEntry === true) getPreloadState().importEntry = true;
  return data;
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
    hookDispatch(port, (original, port, message) => {
      if (!started && onPoolStartup !== undefined) {
        started = true;
        try {
          onPoolStartup(pool, message);
        } catch {
          // The pool runs untraced rather than not at all.
        }
      }
      return original.call(port, message, 'message');
    });
    return;
  }

  const destination = data?.destination ?? process.argv[1] ?? '[worker]';
  // Envelopes come only from an instrumented parent, and hold its secret.
  const secret = data?.secret;
  if (secret !== undefined) unwrapSynchronousReceive(wt, port, secret);
  hookDispatch(port, (original, port, message) => {
    if (secret !== undefined && isEnvelope(message, secret)) {
      const header = message[ENVELOPE_KEY];
      return callProcess('worker_threads', destination, 'message', envelopeCarrier(header, secret), envelopeId(header, secret), original, port, message.value, 'message');
    }
    return callFresh(original, port, message, 'message');
  });
  markListenerErrors(port);
  if (secret !== undefined) envelopeOutgoing(port, destination, secret);
}

/**
 * Routes every `'message'` dispatch of `port` through `around`. `emitMessage` (the C++ → JS entry
 * of every port) and `emit()` both call `port[kHybridDispatch]`, so an own property there sees
 * each message before any listener, whichever way the listener was added.
 */
function hookDispatch(port: PortLike, around: (original: Dispatch, port: unknown, data: unknown) => unknown): void {
  const site = { component: 'workers', id: 'worker.parentPort[kHybridDispatch]', otherwise: "messages from the parent run outside the parent's trace" };
  wrap(
    port,
    kHybridDispatch,
    site,
    (original) =>
      function dispatchMessage(this: unknown, data: unknown, type: string, event: unknown) {
        if (type !== 'message' || event !== undefined) return original!.call(this, data, type, event);
        return around(original as Dispatch, this, data);
      },
  );
}

/**
 * `receiveMessageOnPort(parentPort)` takes a message without dispatching it: unwrap envelopes
 * there too (the value only: no event, so no CONSUMER span).
 */
function unwrapSynchronousReceive(wt: typeof import('node:worker_threads'), parentPort: PortLike, secret: string): void {
  const site = { component: 'workers', id: 'worker.receiveMessageOnPort', otherwise: "receiveMessageOnPort(parentPort) returns the parent's envelopes" };
  wrap(
    wt,
    'receiveMessageOnPort',
    site,
    (receive) =>
      function receiveMessageOnPort(port: unknown) {
        const received = receive(port as never);
        if (port === parentPort && received !== undefined && isEnvelope(received.message, secret)) return { message: received.message.value };
        return received;
      } as typeof receive,
  );
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
  wrap(
    port,
    'addEventListener',
    { component: 'workers', id: 'worker.parentPort.addEventListener', otherwise },
    (add) =>
      function addEventListener(this: unknown, type: string, listener: unknown, options?: unknown) {
        const l = type === 'message' && typeof listener === 'function' ? wrapListener(listener as Listener) : listener;
        return Reflect.apply(add, this, arguments.length > 2 ? [type, l, options] : [type, l]);
      } as typeof add,
  );
  wrap(
    port,
    'removeEventListener',
    { component: 'workers', id: 'worker.parentPort.removeEventListener', otherwise },
    (remove) =>
      function removeEventListener(this: unknown, type: string, listener: unknown, options?: unknown) {
        const l = type === 'message' && typeof listener === 'function' ? (wrappers.get(listener as Listener) ?? listener) : listener;
        return Reflect.apply(remove, this, arguments.length > 2 ? [type, l, options] : [type, l]);
      } as typeof remove,
  );
}

function envelopeOutgoing(port: PortLike, destination: string, secret: string): void {
  const site = { component: 'workers', id: 'worker.parentPort.postMessage', otherwise: 'messages to the parent carry no trace' };
  wrap(
    port,
    'postMessage',
    site,
    (post) =>
      function postMessage(this: unknown, value: unknown, transferList?: unknown) {
        const outgoing = startSend('worker_threads', destination, 'postMessage');
        if (outgoing === undefined) return Reflect.apply(post, this, arguments);
        try {
          post.call(this, makeEnvelope(envelopeHeader(secret, outgoing.carrier, outgoing.id), value), transferList as never);
        } catch (err) {
          endSend(outgoing, err);
          throw err;
        }
        endSend(outgoing);
      } as typeof post,
  );
}

/**
 * Has this worker thread's span files written {@link FLUSH_DELAY_MS} after the first span ended
 * since the last write (one line for all of them), and in the next turn of the event loop whenever a
 * full line ({@link LINE_SPANS}) is waiting (never inside the app's message handler that ended the span). A worker may be stopped (`terminate()`) or parked by a pool in
 * `Atomics.wait` before that: the flush hand-shake covers the first, the pool hooks the second.
 * Only for span files (a synchronous flush costs only the write). Writing each span as it ended
 * cost three syscalls per span (the write and the file's rotation check), more than a message.
 */
export function flushShortlyAfterEnd(): void {
  delayedFlush = true;
  watchEndedSpans();
}

/** Spans per span-file line: a full line is written at once rather than after the delay. */
const LINE_SPANS = 64;
/** How long ended spans of a worker thread wait for others to share their write, ms. */
const FLUSH_DELAY_MS = 20;

let delayedFlush = false;
/** Spans ended since the last flush (counted only while ended spans are watched). */
let unflushed = 0;
let flushScheduled = false;

/** Spans ended in this thread since its last {@link flushSpansNow} (0 when they cannot be watched). */
export function unflushedSpans(): number {
  return unflushed;
}

/** Set while ended spans are tracked for the parent's flush hand-shake. */
let holding: { control: Int32Array } | undefined;
let watching = false;

/**
 * Hands every ended span of this thread to its exporter and has it written or sent before
 * returning, as at the process's `exit` (the preload's `synchronousExport` state: span files are written at
 * once, OTLP spans go through the synchronous exit sender). For a thread that is about to be
 * stopped, or to block where no later turn of its event loop will come. Never throws.
 */
export function flushSpansNow(): void {
  const provider = getRegisteredProvider();
  if (!provider?.forceFlush) return;
  unflushed = 0;
  const state = getPreloadState();
  const previous = state.synchronousExport;
  state.synchronousExport = true;
  try {
    void provider.forceFlush().catch(() => undefined);
  } catch {
    // Nothing more can be done for these spans; the app must not notice.
  } finally {
    state.synchronousExport = previous;
    // Only once written: the parent stops a worker holding none at once, mid-write included.
    if (holding !== undefined && unflushed === 0) Atomics.store(holding.control, CONTROL.HOLDS, 0);
  }
}

let flushImmediate = false;

/** Has the waiting spans written in the next turn of the event loop (a full line is waiting). */
function flushSoon(): void {
  if (flushImmediate) return;
  flushImmediate = true;
  setImmediate(() => {
    flushImmediate = false;
    if (unflushed > 0) flushSpansNow();
  }).unref();
}

function flushDelayed(): void {
  flushScheduled = false;
  if (unflushed > 0) flushSpansNow();
}

/**
 * Tells the parent, through `CONTROL.HOLDS`, whether this worker holds ended spans, so that
 * `terminate()` asks for a flush only then; and counts them for {@link flushShortlyAfterEnd}.
 */
function trackEndedSpans(control: Int32Array): void {
  holding = { control };
  if (!watchEndedSpans()) Atomics.store(control, CONTROL.HOLDS, 1);
}

/**
 * Watches the spans this thread ends. Every ended span goes through the TracerProvider's
 * `_activeSpanProcessor.onEnd` (OpenTelemetry JS SDK 2.x, an internal of `BasicTracerProvider`
 * relied on here). Idempotent.
 * @returns false when the provider has no such processor (the worker then says it may always hold spans)
 */
function watchEndedSpans(): boolean {
  if (watching) return true;
  const site = { component: 'workers', id: 'worker.TracerProvider._activeSpanProcessor.onEnd', otherwise: 'terminate() always asks this worker to flush' };
  watching = wrap(
    activeSpanProcessorOf(getRegisteredProvider()),
    'onEnd',
    site,
    (onEnd) =>
      function onEndTracked(this: unknown, span: unknown) {
        const result = onEnd.call(this, span);
        if (unflushed++ === 0 && holding !== undefined) Atomics.store(holding.control, CONTROL.HOLDS, 1);
        if (delayedFlush) {
          // Never inside the app's handler that ended the span: in a turn of its own, just after.
          if (unflushed >= LINE_SPANS) flushSoon();
          else if (!flushScheduled) {
            flushScheduled = true;
            setTimeout(flushDelayed, FLUSH_DELAY_MS).unref();
          }
        }
        return result;
      },
  );
  return watching;
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
