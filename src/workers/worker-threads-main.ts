import { context } from '@opentelemetry/api';
import type { WorkerOptions } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { isDisabled, readConfig } from '../config/environment.js';
import type { TracehookConfig } from '../config/environment.js';
import { logDebug } from '../diag/logger.js';
import { injectToCarrier } from '../propagation/carrier-record.js';
import { endSend, runFresh, runProcess, startSend } from './messaging-spans.js';
import { argsMentionPreload, mentionsPreload, preloadArgs, usesRequireEntry } from './preload-flags.js';
import type { PoolName, WorkerEnvironmentData } from './protocol.js';
import { CONTROL, ENV_DATA_KEY, isEnvelope, makeEnvelope, PROTOCOL_VERSION, waitAsync } from './protocol.js';

/**
 * The parent side of worker_threads: `new Worker()` loads the preload in the worker (adding it to
 * an `execArgv` of the app's that lacks it) and hands the worker the caller's context;
 * `worker.postMessage()` from a traced context sends an envelope and a PRODUCER span; a message
 * from the worker runs its listeners inside a CONSUMER span; `terminate()` and this thread's exit
 * first let the worker flush its spans.
 */

type WorkerClass = typeof import('node:worker_threads').Worker;
type WorkerInstance = InstanceType<WorkerClass>;

/** Bound on waiting for a worker to flush before `terminate()` / this thread's exit goes on, ms. */
export const WORKER_FLUSH_TIMEOUT_MS = 250;

const STATE = Symbol('tracehook.worker');

interface WorkerState {
  /** The worker runs the preload and unwraps envelopes. */
  peer: boolean;
  /** `messaging.destination.name`. */
  destination: string;
  /** A pool's worker: its channel carries the pool's protocol, left alone. */
  pool?: PoolName;
  control: Int32Array;
}

type Traced = WorkerInstance & { [STATE]?: WorkerState };

/** Workers started by this thread that may hold unflushed spans. */
const live = new Set<Traced>();

let flushTimeoutMs = WORKER_FLUSH_TIMEOUT_MS;

/**
 * Replaces `worker_threads.Worker` with a subclass (instances are still `instanceof` the original;
 * the caller makes ES-module named imports see it with `syncBuiltinESMExports`). Idempotent.
 */
export function installWorkerThreadsMain(config: TracehookConfig): void {
  const wt = require('node:worker_threads') as typeof import('node:worker_threads') & { Worker: WorkerClass & { [STATE]?: true } };
  if (wt.Worker[STATE]) return;
  flushTimeoutMs = Math.min(WORKER_FLUSH_TIMEOUT_MS, config.shutdownTimeoutMs);
  const Original = wt.Worker;
  const asyncActivation = usesRequireEntry() && (config.startupHook !== undefined || config.exporterImportPath !== undefined);

  class Worker extends Original {
    constructor(filename: string | URL, options?: WorkerOptions) {
      const plan = asyncActivation ? undefined : planWorker(filename, options);
      if (plan !== undefined) wt.setEnvironmentData(ENV_DATA_KEY, plan.data as never);
      try {
        super(filename, plan?.options ?? options);
      } finally {
        if (plan !== undefined) wt.setEnvironmentData(ENV_DATA_KEY, undefined as never);
      }
      if (plan !== undefined) {
        (this as Traced)[STATE] = plan.state;
        track(this as Traced);
      }
    }

    override postMessage(value: unknown, transferList?: never): void {
      const state = (this as Traced)[STATE];
      if (state === undefined || !state.peer || state.pool !== undefined) return super.postMessage(value, transferList);
      const outgoing = startSend('worker_threads', state.destination, 'postMessage');
      if (outgoing === undefined) return super.postMessage(value, transferList);
      try {
        super.postMessage(makeEnvelope(value, outgoing.carrier, outgoing.id), transferList);
      } catch (err) {
        endSend(outgoing, err);
        throw err;
      }
      endSend(outgoing);
    }

    override emit(event: string | symbol, ...args: unknown[]): boolean {
      const state = (this as Traced)[STATE];
      if (event !== 'message' || state === undefined) return super.emit(event, ...args);
      const data = args[0];
      if (isEnvelope(data)) {
        args[0] = data.value;
        return runProcess('worker_threads', state.destination, 'message', data.carrier, data.id, () => super.emit(event, ...args));
      }
      return runFresh(() => super.emit(event, ...args));
    }

    override terminate(callback?: never): Promise<number> {
      const state = (this as Traced)[STATE];
      const terminate = (): Promise<number> => (super.terminate as (cb?: unknown) => Promise<number>).call(this, callback);
      if (state === undefined || !holdsSpans(state) || this.threadId === -1) return terminate();
      live.delete(this as Traced);
      return requestFlush(state.control).then(terminate);
    }
  }
  Object.defineProperty(Worker, STATE, { value: true });
  wt.Worker = Worker as WorkerClass;
}

interface WorkerPlan {
  options: WorkerOptions | undefined;
  data: WorkerEnvironmentData;
  state: WorkerState;
}

/**
 * Decides how a new worker is started. The worker is a peer (gets the preload, environment data
 * and envelopes) unless its `env` disables tracing or breaks its configuration; `execArgv` is
 * changed only when the app gave one that lacks the preload (an inherited `execArgv` already has
 * it, and copying `process.execArgv` could fail on flags a worker rejects).
 * @returns undefined when the worker is left alone (no preload reaches it). Never throws.
 */
function planWorker(filename: string | URL, options: WorkerOptions | undefined): WorkerPlan | undefined {
  try {
    const env = typeof options?.env === 'object' && options.env !== null ? (options.env as NodeJS.ProcessEnv) : process.env;
    if (isDisabled(env)) return undefined;
    if (env !== process.env && readConfig(env).errors.some((e) => e.disablesTracing)) return undefined;
    const fromNodeOptions = mentionsPreload(process.env.NODE_OPTIONS);
    let execArgv = options?.execArgv;
    if (execArgv === undefined) {
      // Inherited: the worker runs the preload only if this thread got it from a flag.
      if (!fromNodeOptions && !argsMentionPreload(process.execArgv)) return undefined;
    } else if (!fromNodeOptions && !argsMentionPreload(execArgv)) {
      execArgv = [...execArgv, ...preloadArgs()];
    }
    const destination = destinationOf(filename, options);
    const pool = poolOf(destination);
    const control = new Int32Array(new SharedArrayBuffer(CONTROL.LENGTH * Int32Array.BYTES_PER_ELEMENT));
    const carrier = injectToCarrier(context.active());
    const data: WorkerEnvironmentData = { v: PROTOCOL_VERSION, destination, control, ...(carrier ? { carrier } : {}), ...(pool ? { pool } : {}) };
    const changed = execArgv !== options?.execArgv ? { ...options, execArgv } : options;
    return { options: changed, data, state: { peer: true, destination, pool, control } };
  } catch (err) {
    logDebug('workers', `new Worker left uninstrumented: ${(err as Error)?.message ?? err}`);
    return undefined;
  }
}

function destinationOf(filename: string | URL, options: WorkerOptions | undefined): string {
  if (options?.eval) return '[worker eval]';
  if (filename instanceof URL) return filename.protocol === 'file:' ? fileURLToPath(filename) : filename.href;
  return String(filename);
}

function poolOf(destination: string): PoolName | undefined {
  if (/[\\/]piscina[\\/]dist[\\/](src[\\/])?worker\.js$/.test(destination)) return 'piscina';
  if (/[\\/]tinypool[\\/]dist[\\/](entry[\\/])?worker\.js$/.test(destination)) return 'tinypool';
  return undefined;
}

function track(worker: Traced): void {
  for (const w of live) if (w.threadId === -1) live.delete(w);
  live.add(worker);
}

/** The worker serves flush requests and is not a pool worker parked with everything flushed. */
function holdsSpans(state: WorkerState): boolean {
  return Atomics.load(state.control, CONTROL.READY) === 1 && Atomics.load(state.control, CONTROL.IDLE) === 0;
}

/** Asks the worker to flush, resolving when it has or after {@link flushTimeoutMs}. Never rejects. */
function requestFlush(control: Int32Array): Promise<void> {
  const request = Atomics.add(control, CONTROL.REQUEST, 1) + 1;
  Atomics.notify(control, CONTROL.REQUEST);
  return new Promise((resolve) => {
    // A ref'd timer: the wait is bounded and keeps the loop alive while it lasts.
    const timer = setTimeout(resolve, flushTimeoutMs);
    const check = (): void => {
      const ack = Atomics.load(control, CONTROL.ACK);
      if (ack >= request || Atomics.load(control, CONTROL.IDLE) === 1) {
        clearTimeout(timer);
        resolve();
        return;
      }
      if (waitAsync === undefined) return; // the timer resolves
      const waited = waitAsync(control, CONTROL.ACK, ack, flushTimeoutMs);
      if (waited.async) void waited.value.then(check);
      else if (waited.value === 'not-equal') check();
    };
    check();
  });
}

/**
 * Synchronously asks every live worker of this thread to flush and waits, bounded in total by
 * {@link flushTimeoutMs}: at this thread's `exit`, after which its workers are stopped.
 */
export function flushWorkersSync(): void {
  const deadline = Date.now() + flushTimeoutMs;
  const pending: Array<[Int32Array, number]> = [];
  for (const worker of live) {
    const state = worker[STATE];
    if (state === undefined || worker.threadId === -1 || !holdsSpans(state)) continue;
    pending.push([state.control, Atomics.add(state.control, CONTROL.REQUEST, 1) + 1]);
    Atomics.notify(state.control, CONTROL.REQUEST);
  }
  for (const [control, request] of pending) {
    for (;;) {
      const ack = Atomics.load(control, CONTROL.ACK);
      const left = deadline - Date.now();
      if (ack >= request || Atomics.load(control, CONTROL.IDLE) === 1 || left <= 0) break;
      Atomics.wait(control, CONTROL.ACK, ack, left);
    }
  }
  live.clear();
}
