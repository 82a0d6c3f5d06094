import { context } from '@opentelemetry/api';
import type { WorkerOptions } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { isDisabled, readConfig, wantsEsmLoader } from '../config/environment.js';
import type { TracehookConfig } from '../config/environment.js';
import { logDebug } from '../diag/logger.js';
import { epochAnchor } from '../provider/monotonic-clock.js';
import { appDirectory } from '../startup-hook/resolve-from-app.js';
import { isPatched, wrap } from '../patch/wrap.js';
import { injectToCarrier } from '../propagation/carrier-record.js';
import type { Dispatch } from './messaging-spans.js';
import { callFresh, callProcess, endSend, startSend } from './messaging-spans.js';
import type { PreloadKind } from './preload-flags.js';
import {
  FLAGS_WITH_VALUE,
  nodeOptionsPreloadKinds,
  nodeOptionsWithAbsolutePreload,
  ownPreloadFlags,
  preloadAvailable,
  preloadKinds,
  usesRequireEntry,
  withAbsolutePreload,
  withImportEntryAgain,
  withRequireEntry,
} from './preload-flags.js';
import { preloadFlags } from '../package-root.js';
import type { PoolName, WorkerEnvironmentData } from './protocol.js';
import { CHANNEL_SECRET, CONTROL, ENV_DATA_KEY, ENVELOPE_KEY, envelopeCarrier, envelopeHeader, envelopeId, isEnvelope, makeEnvelope, PROTOCOL_VERSION, waitAsync } from './protocol.js';

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
const WORKER_SITE = { component: 'workers', id: 'worker_threads.Worker', otherwise: 'worker threads start without the preload or the trace' };

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
  const wt = require('node:worker_threads') as typeof import('node:worker_threads');
  if (isPatched(wt.Worker, WORKER_SITE.id)) return;
  flushTimeoutMs = Math.min(WORKER_FLUSH_TIMEOUT_MS, config.shutdownTimeoutMs);
  const asyncActivation = usesRequireEntry() && (config.startupHook !== undefined || config.exporterImportPath !== undefined);

  wrap(
    wt,
    'Worker',
    WORKER_SITE,
    (Original) =>
      class Worker extends Original {
        constructor(filename: string | URL, options?: WorkerOptions) {
          let plan = planWorker(filename, options, config);
          // Tracing starts here only after the worker's first lines: no environment data, no envelopes.
          if (asyncActivation && plan !== undefined) plan = { options: plan.options, copiedExecArgv: plan.copiedExecArgv };
          if (plan?.data !== undefined) wt.setEnvironmentData(ENV_DATA_KEY, plan.data as never);
          let peer = plan?.state !== undefined;
          try {
            try {
              super(filename, plan?.options ?? options);
            } catch (err) {
              // The copy of this thread's execArgv holds flags a worker rejects (they are process-wide:
              // the worker has them anyway): learn them, and try again without them.
              if (plan?.copiedExecArgv !== true || !learnRejectedFlags(err)) throw err;
              try {
                super(filename, { ...plan.options, execArgv: withoutRejectedFlags(plan.options!.execArgv!) });
              } catch {
                // As the app asked, without envelopes: the worker may still find the preload.
                peer = false;
                wt.setEnvironmentData(ENV_DATA_KEY, undefined as never);
                super(filename, options);
              }
            }
          } finally {
            if (plan?.data !== undefined) wt.setEnvironmentData(ENV_DATA_KEY, undefined as never);
          }
          if (peer) {
            (this as Traced)[STATE] = plan!.state;
            track(this as Traced);
          }
        }

        override postMessage(value: unknown, transferList?: never): void {
          const state = (this as Traced)[STATE];
          if (state === undefined || !state.peer || state.pool !== undefined) return super.postMessage(value, transferList);
          const outgoing = startSend('worker_threads', state.destination, 'postMessage');
          if (outgoing === undefined) return super.postMessage(value, transferList);
          try {
            super.postMessage(makeEnvelope(envelopeHeader(CHANNEL_SECRET, outgoing.carrier, outgoing.id), value), transferList);
          } catch (err) {
            endSend(outgoing, err);
            throw err;
          }
          endSend(outgoing);
        }

        override emit(event: string | symbol, data?: unknown): boolean {
          const state = (this as Traced)[STATE];
          const emit = Original.prototype.emit as Dispatch;
          if (event !== 'message' || state === undefined || arguments.length !== 2) return Reflect.apply(emit, this, arguments) as boolean;
          if (isEnvelope(data, CHANNEL_SECRET)) {
            const header = data[ENVELOPE_KEY];
            return callProcess('worker_threads', state.destination, 'message', envelopeCarrier(header, CHANNEL_SECRET), envelopeId(header, CHANNEL_SECRET), emit, this, event, data.value) as boolean;
          }
          return callFresh(emit, this, event, data) as boolean;
        }

        override terminate(callback?: never): Promise<number> {
          const state = (this as Traced)[STATE];
          const terminate = (): Promise<number> => (super.terminate as (cb?: unknown) => Promise<number>).call(this, callback);
          if (state === undefined || !holdsSpans(state) || this.threadId === -1) return terminate();
          live.delete(this as Traced);
          return requestFlush(state.control).then(terminate);
        }
      },
  );
}

interface WorkerPlan {
  /** What the worker is constructed with. */
  options: WorkerOptions | undefined;
  /** `options.execArgv` is this thread's `execArgv` copied (to load the preload from an absolute location). */
  copiedExecArgv: boolean;
  /** Set when the worker is a peer (it runs the preload and unwraps envelopes). */
  data?: WorkerEnvironmentData;
  state?: WorkerState;
}

/**
 * Decides how a new worker is started.
 * - Wherever the preload reaches it (its `execArgv`, explicit or inherited, and `NODE_OPTIONS` in
 *   its `env`), it loads it from an absolute location: a worker resolves a bare or relative
 *   preload from the process's working directory, which `process.chdir()` may have changed. An
 *   inherited `execArgv` that needs this is copied from this thread's.
 * - An `execArgv` of the app's that lacks the preload gets it.
 * - The worker is a peer (environment data, envelopes) when the preload will run there and its
 *   `env` neither disables tracing nor breaks its configuration. `eval` workers run `--require`
 *   preloads but never `--import` ones.
 * @returns undefined when the worker is started as the app asked. Never throws.
 */
function planWorker(filename: string | URL, options: WorkerOptions | undefined, config: TracehookConfig): WorkerPlan | undefined {
  try {
    const appEnv = typeof options?.env === 'object' && options.env !== null ? (options.env as NodeJS.ProcessEnv) : undefined;
    const env = appEnv ?? process.env;
    const ownExecArgv = options?.execArgv;
    const inheritedExecArgv = process.execArgv;
    const workerConfig = env === process.env ? config : readConfig(env);
    const lean = !options?.eval && synchronousStart(workerConfig);
    let execArgv = withAbsolutePreload(ownExecArgv ?? inheritedExecArgv);
    if (lean) execArgv = withRequireEntry(execArgv);
    else if (ownExecArgv === undefined) execArgv = withImportEntryAgain(execArgv);
    if (execArgv === inheritedExecArgv) execArgv = ownExecArgv as string[];
    else if (ownExecArgv === undefined) execArgv = withoutRejectedFlags(execArgv);
    // SHARE_ENV: the worker reads this thread's env, left as it is.
    const nodeOptions = typeof options?.env === 'symbol' ? env.NODE_OPTIONS : nodeOptionsWithAbsolutePreload(env.NODE_OPTIONS);
    const workerEnv = nodeOptions !== env.NODE_OPTIONS ? { ...env, NODE_OPTIONS: nodeOptions } : appEnv;

    const reaches = (kinds: Set<PreloadKind>): boolean => kinds.has('require') || (kinds.has('import') && !options?.eval);
    const enabled = !isDisabled(env) && !(env !== process.env && workerConfig.errors.some((e) => e.disablesTracing));
    let peer = enabled && (reaches(preloadKinds(execArgv ?? inheritedExecArgv)) || reaches(nodeOptionsPreloadKinds(nodeOptions)));
    if (!peer && enabled && ownExecArgv !== undefined && preloadAvailable()) {
      const added = lean ? preloadFlags(true) : ownPreloadFlags();
      if (reaches(preloadKinds(added))) {
        execArgv = [...(execArgv ?? ownExecArgv), ...added];
        peer = true;
      }
    }
    const changed = execArgv !== ownExecArgv || workerEnv !== appEnv;
    const startOptions = changed ? { ...options, execArgv, ...(workerEnv !== appEnv ? { env: workerEnv } : {}) } : options;
    const copiedExecArgv = ownExecArgv === undefined && execArgv !== undefined;
    if (!peer) return changed ? { options: startOptions, copiedExecArgv } : undefined;

    const destination = destinationOf(filename, options);
    const pool = poolOf(destination);
    const control = new Int32Array(new SharedArrayBuffer(CONTROL.LENGTH * Int32Array.BYTES_PER_ELEMENT));
    const carrier = injectToCarrier(context.active());
    const app = appDirectory();
    const data: WorkerEnvironmentData = {
      v: PROTOCOL_VERSION,
      secret: CHANNEL_SECRET,
      destination,
      control,
      epochAnchor: epochAnchor(),
      ...(carrier ? { carrier } : {}),
      ...(pool ? { pool } : {}),
      ...(app ? { appDirectory: app } : {}),
      ...(lean && !usesRequireEntry() ? { importEntry: true as const } : {}),
    };
    return { options: startOptions, copiedExecArgv, data, state: { peer: true, destination, pool, control } };
  } catch (err) {
    logDebug('workers', `new Worker left uninstrumented: ${(err as Error)?.message ?? err}`);
    return undefined;
  }
}

/**
 * The preload starts synchronously in a thread of this configuration (no startup hook, no exporter import path, no
 * ES module loader hook), so `--require` loads it as `--import` would ({@link withRequireEntry}).
 */
function synchronousStart(config: TracehookConfig): boolean {
  return config.startupHook === undefined && config.exporterImportPath === undefined && !wantsEsmLoader(config);
}

/** Flags of this thread's `execArgv` that a worker's explicit `execArgv` may not hold. */
const rejectedFlags = new Set<string>();

/**
 * Learns the flags named by an `ERR_WORKER_INVALID_EXEC_ARGV` ("…flags: --a, --b").
 * @returns false for any other error, or one naming no flag not already known
 */
function learnRejectedFlags(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || typeof e.message !== 'string') return false;
  const colon = e.message.lastIndexOf(': ');
  if (colon < 0) return false;
  const before = rejectedFlags.size;
  for (const flag of e.message.slice(colon + 2).split(', ')) if (flag.startsWith('-')) rejectedFlags.add(flag.split('=')[0]);
  return rejectedFlags.size > before;
}

function withoutRejectedFlags(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const name = execArgv[i].split('=')[0];
    if (!rejectedFlags.has(name)) kept.push(execArgv[i]);
    else if (name === execArgv[i] && FLAGS_WITH_VALUE.has(name)) i++;
  }
  return kept;
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

/**
 * The worker serves flush requests, may hold ended spans, and is not a pool worker parked with
 * everything flushed. A worker holding none is stopped at once, as untraced: one busy in
 * synchronous code could not answer before the bound. Pool workers keep to their own IDLE
 * hand-shake (with HOLDS as well, spans of theirs were lost under load).
 */
function holdsSpans(state: WorkerState): boolean {
  const control = state.control;
  if (Atomics.load(control, CONTROL.READY) !== 1 || Atomics.load(control, CONTROL.IDLE) !== 0) return false;
  return state.pool !== undefined || Atomics.load(control, CONTROL.HOLDS) === 1;
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
