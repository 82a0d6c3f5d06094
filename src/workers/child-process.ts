import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { isDisabled } from '../config/environment.js';
import { logDebug } from '../diag/logger.js';
import { INTERNAL_MESSAGE_EVENT, envPairsOf } from '../compat/node-child-process.js';
import { isPatched, wrap } from '../patch/wrap.js';
import { injectToCarrier } from '../propagation/carrier-record.js';
import { ENV_CARRIER_FIELDS, envCarrier, envVariableName } from '../propagation/env-carrier.js';
import type { MessagingSystem } from './messaging-spans.js';
import { endSend, runFresh, runProcess, startSend } from './messaging-spans.js';
import {
  appendNodeOption,
  IPC_ENTRY,
  isNodeExecutable,
  nodeOptionsWithAbsolutePreload,
  nodeOptionsWithPreload,
  optionsEnd,
  preloadKinds,
  runsOwnScript,
  scriptOf,
  withAbsolutePreload,
} from './preload-flags.js';
import type { EarlyIpcState, IpcCarrierMessage } from './protocol.js';
import { EARLY_IPC_KEY, IPC_CMD, IPC_SECRET_VARIABLE, isInternalIpcMessage, isIpcCarrier, newChannelSecret, PROTOCOL_VERSION } from './protocol.js';

/**
 * Child processes and cluster workers.
 * - Every child started with `spawn`/`fork`/`exec`/`execFile` (all through
 *   `ChildProcess.prototype.spawn`) or `spawnSync`/`execFileSync`/`execSync` gets the active
 *   context as `TRACEPARENT`/`TRACESTATE`/`BAGGAGE` (the OpenTelemetry environment-variable carrier),
 *   and a child that runs Node.js without the preload in its arguments gets it appended to
 *   `NODE_OPTIONS` (the app's own options kept).
 * - Over IPC (`send()` / `'message'`, both directions, cluster included), a message sent from a
 *   traced context is preceded by a hidden {@link IpcCarrierMessage}; the receiver's listeners run
 *   inside a CONSUMER span, child of the sender's PRODUCER span.
 */

const INSTRUMENTED = Symbol('tracehook.ipc');
const SPAWN_SITE = { component: 'workers', id: 'child_process.ChildProcess#spawn', otherwise: 'child processes start without the preload or the trace' };

/** `TRACEPARENT` this process was started with: a child env holding it inherited it, it was not set by the app. */
let inheritedTraceparent: string | undefined;

type Env = Record<string, string | undefined>;

/** Changes to a child's environment: a value to set, or null to delete. */
type EnvChanges = Map<string, string | null>;

/**
 * The environment changes for a child. `get` reads the child's environment as the app built it.
 * @param runsNode - the child runs Node.js (`process.execPath`, or `node` on the PATH)
 * @param args - the child's arguments after the executable
 * @param ipcSecret - the secret of the child's IPC channel, when it has one: it also gets the early IPC hook (ipc-entry.ts)
 */
function envChanges(get: (name: string) => string | undefined, runsNode: boolean, args: readonly string[], ipcSecret?: string): EnvChanges {
  const changes: EnvChanges = new Map();
  const disabled = isDisabled({ TRACEHOOK_DISABLED: get('TRACEHOOK_DISABLED'), OTEL_SDK_DISABLED: get('OTEL_SDK_DISABLED') });
  // Whatever the child runs (a shell passes NODE_OPTIONS on to node), a preload in NODE_OPTIONS is
  // loaded from an absolute location: the child may start in another directory.
  let nodeOptions = nodeOptionsWithAbsolutePreload(get('NODE_OPTIONS'));
  if (runsNode && !disabled) {
    nodeOptions = nodeOptionsWithPreload(nodeOptions, preloadKinds(args, optionsEnd(args)).size > 0);
    if (ipcSecret !== undefined) {
      if (!nodeOptions?.includes(IPC_ENTRY)) nodeOptions = appendNodeOption(nodeOptions, '--require', IPC_ENTRY);
      changes.set(IPC_SECRET_VARIABLE, ipcSecret);
    }
  }
  if (nodeOptions !== get('NODE_OPTIONS')) changes.set('NODE_OPTIONS', nodeOptions as string);
  const active = context.active();
  const spanContext = trace.getSpanContext(active);
  const traceparent = get('TRACEPARENT');
  // A TRACEPARENT the app set itself (not the one this process inherited) is the app's decision.
  if (spanContext !== undefined && isSpanContextValid(spanContext) && (traceparent === undefined || traceparent === inheritedTraceparent)) {
    const carrier = injectToCarrier(active);
    if (carrier !== undefined) {
      for (const field of ENV_CARRIER_FIELDS) changes.set(envVariableName(field), carrier[field] ?? null);
    }
  }
  return changes;
}

function applyToPairs(pairs: string[], changes: EnvChanges): string[] {
  const kept = pairs.filter((pair) => {
    const eq = pair.indexOf('=');
    return !changes.has(eq < 0 ? pair : pair.slice(0, eq));
  });
  for (const [name, value] of changes) if (value !== null) kept.push(`${name}=${value}`);
  return kept;
}

function pairsGetter(pairs: readonly string[]): (name: string) => string | undefined {
  return (name) => {
    const prefix = `${name}=`;
    for (let i = pairs.length - 1; i >= 0; i--) if (pairs[i].startsWith(prefix)) return pairs[i].slice(prefix.length);
    return undefined;
  };
}

interface SpawnOptions {
  file?: unknown;
  args?: unknown;
  envPairs?: unknown;
  stdio?: unknown;
}

type ChildProcessLike = import('node:child_process').ChildProcess & { [INSTRUMENTED]?: true };

/** Installs the parent side: context and preload into every child, IPC on every child's channel. Idempotent. */
export function installChildProcessParent(): void {
  const cp = require('node:child_process') as typeof import('node:child_process') & Record<string, unknown>;
  const proto = cp.ChildProcess.prototype as unknown as { spawn(options: SpawnOptions): unknown };
  if (isPatched(proto.spawn, SPAWN_SITE.id)) return;
  inheritedTraceparent = envCarrier(process.env).get('traceparent');

  wrap(
    proto,
    'spawn',
    SPAWN_SITE,
    (spawn) =>
      function spawnWithPreloadAndTrace(this: ChildProcessLike, options: SpawnOptions) {
        let plan: SpawnPlan | undefined;
        try {
          plan = planSpawn(options);
        } catch (err) {
          logDebug('workers', `child process left uninstrumented: ${(err as Error)?.message ?? err}`);
        }
        const result = spawn.call(this, plan?.options ?? options);
        // Only a Node.js child routes NODE_-prefixed messages away from its 'message' listeners.
        // The channel's own secret (see IPC_SECRET_VARIABLE); a fresh one when the child was not given any.
        if (plan?.runsNode && typeof this.send === 'function') instrumentIpc(this, plan.system, plan.destination, plan.ipcSecret ?? newChannelSecret());
        return result;
      },
  );

  for (const name of ['spawnSync', 'execFileSync', 'execSync'] as const) {
    const site = { component: 'workers', id: `child_process.${name}`, otherwise: `${name} children start without the preload or the trace` };
    wrap(
      cp as Record<string, unknown>,
      name,
      site,
      (original) =>
        function withChildEnvironment(this: unknown, ...args: unknown[]) {
          let changed = args;
          try {
            changed = withChildEnv(name, args);
          } catch {
            // as the app called it
          }
          return (original as (...a: unknown[]) => unknown).apply(this, changed);
        },
    );
  }
}

interface SpawnPlan {
  options: SpawnOptions;
  system: MessagingSystem;
  destination: string | undefined;
  runsNode: boolean;
  /** The secret handed to the child in its environment for its IPC channel. */
  ipcSecret?: string;
}

function planSpawn(spawnOptions: SpawnOptions): SpawnPlan | undefined {
  if (typeof spawnOptions !== 'object' || spawnOptions === null) return undefined;
  let options = spawnOptions;
  let args = Array.isArray(options.args) ? (options.args.slice(1) as string[]) : [];
  if (runsOwnScript(args)) return undefined;
  const runsNode = isNodeExecutable(options.file);
  if (runsNode) {
    // The preload flags of a node child (fork copies this process's execArgv) from an absolute location.
    const absolute = withAbsolutePreload(args, optionsEnd(args));
    if (absolute !== args) {
      args = absolute;
      options = { ...options, args: [(options.args as unknown[])[0], ...absolute] };
    }
  }
  const destination = runsNode ? scriptOf(args) : typeof options.file === 'string' ? options.file : undefined;
  const pairs = envPairsOf(options);
  if (pairs === undefined) return { options, system: 'child_process', destination, runsNode };
  const get = pairsGetter(pairs);
  const system: MessagingSystem = get('NODE_UNIQUE_ID') !== undefined ? 'cluster' : 'child_process';
  const ipc = Array.isArray(options.stdio) ? options.stdio.includes('ipc') : options.stdio === 'ipc';
  const changes = envChanges(get, runsNode, args, ipc ? newChannelSecret() : undefined);
  if (changes.size === 0) return { options, system, destination, runsNode };
  const ipcSecret = changes.get(IPC_SECRET_VARIABLE) ?? undefined;
  return { options: { ...options, envPairs: applyToPairs(pairs, changes) }, system, destination, runsNode, ipcSecret };
}

/** The arguments of a `spawnSync` / `execFileSync` / `execSync` call with the child's env changed. */
function withChildEnv(name: 'spawnSync' | 'execFileSync' | 'execSync', args: unknown[]): unknown[] {
  let at: number;
  if (name === 'execSync') at = 1;
  else if (Array.isArray(args[1]) || args[1] === undefined || args[1] === null) at = 2;
  else if (typeof args[1] === 'object') at = 1;
  else return args;
  const options = args[at] as { env?: Env; shell?: unknown } | undefined | null;
  if (options !== undefined && options !== null && typeof options !== 'object') return args;
  const env: Env = options?.env ?? process.env;
  let childArgs = at === 2 && Array.isArray(args[1]) ? (args[1] as string[]) : [];
  if (runsOwnScript(childArgs)) return args;
  const runsNode = name !== 'execSync' && !options?.shell && isNodeExecutable(args[0]);
  const absoluteArgs = runsNode ? withAbsolutePreload(childArgs, optionsEnd(childArgs)) : childArgs;
  const changes = envChanges((n) => env[n], runsNode, absoluteArgs);
  if (changes.size === 0 && absoluteArgs === childArgs) return args;
  const changed = args.slice();
  childArgs = absoluteArgs;
  if (at === 2 && Array.isArray(args[1])) changed[1] = childArgs;
  if (changes.size > 0) {
    const newEnv: Env = { ...env };
    for (const [key, value] of changes) {
      if (value === null) delete newEnv[key];
      else newEnv[key] = value;
    }
    while (changed.length < at) changed.push(undefined);
    changed[at] = { ...options, env: newEnv };
  }
  return changed;
}

/**
 * The child side: when an instrumented Node.js parent started this process with an IPC channel
 * (forked, or a cluster worker; it then also gave it the early IPC hook), `process.send` /
 * `'message'` carry context like the parent's. With any other parent nothing is sent: it could not
 * use a carrier, and one that is not Node.js might not hide it.
 */
export function installChildProcessChild(): void {
  const target = process as unknown as ChildProcessLike;
  const early = (globalThis as typeof globalThis & { [EARLY_IPC_KEY]?: EarlyIpcState })[EARLY_IPC_KEY];
  if (typeof target.send !== 'function' || early === undefined) return;
  // Node deletes NODE_UNIQUE_ID from a cluster worker's env before preloads run; ask cluster.
  const system: MessagingSystem = (require('node:cluster') as typeof import('node:cluster').default).isWorker ? 'cluster' : 'child_process';
  early.adopted = true;
  instrumentIpc(target, system, process.argv[1], early.secret, { sent: 0, received: early.received, carriers: early.carriers });
}

interface IpcState {
  /** User messages sent on this channel. */
  sent: number;
  /** User messages emitted as `'message'` on this side. */
  received: number;
  /** Carriers received, by the number of the user message they precede. */
  carriers: Map<number, IpcCarrierMessage>;
}

const MAX_PENDING_CARRIERS = 1024;
const noop = (): void => undefined;

type Send = (message: unknown, ...rest: unknown[]) => boolean;
type Emit = (event: string | symbol, ...args: unknown[]) => boolean;

/**
 * Hooks one IPC endpoint (a ChildProcess in the parent, `process` in the child): `send()` of a
 * user message from a traced context first sends the carrier as an internal message; `'message'`
 * events run inside the CONSUMER span of the carrier with the same number, others on an empty
 * trace stack. `ChildProcess#send` is set per instance when the channel is set up, so this is
 * per instance too.
 */
function instrumentIpc(target: ChildProcessLike, system: MessagingSystem, destination: string | undefined, secret: string, initial?: IpcState): void {
  if (Object.prototype.hasOwnProperty.call(target, INSTRUMENTED)) return;
  Object.defineProperty(target, INSTRUMENTED, { value: true });
  const state: IpcState = initial ?? { sent: 0, received: 0, carriers: new Map() };

  const ipc = target as unknown as { send: Send; emit: Emit };
  const sendSite = { component: 'workers', id: 'ipc.send', otherwise: 'IPC messages carry no trace' };
  wrap(
    ipc,
    'send',
    sendSite,
    (send) =>
      function (this: unknown, message: unknown, ...rest: unknown[]) {
        if (isInternalIpcMessage(message)) return send.call(this, message, ...rest);
        const seq = state.sent + 1;
        const outgoing = startSend(system, destination, 'send');
        if (outgoing !== undefined) {
          // A callback, so that a closed channel reports through the app's own send, not twice.
          const carrierMessage: IpcCarrierMessage = { cmd: IPC_CMD, v: PROTOCOL_VERSION, secret, seq, carrier: outgoing.carrier, id: outgoing.id };
          try {
            send.call(this, carrierMessage, noop);
          } catch {
            // the user's send below reports the same failure
          }
        }
        let result: boolean;
        try {
          result = send.call(this, message, ...rest);
        } catch (err) {
          if (outgoing !== undefined) {
            try {
              send.call(this, { cmd: IPC_CMD, v: PROTOCOL_VERSION, secret, seq, cancel: true }, noop);
            } catch {
              // the channel is gone: so is the carrier
            }
            endSend(outgoing, err);
          }
          throw err;
        }
        state.sent = seq;
        if (outgoing !== undefined) endSend(outgoing);
        return result;
      },
  );

  const emitSite = { component: 'workers', id: 'ipc.emit', otherwise: "IPC messages run outside the sender's trace" };
  wrap(
    ipc,
    'emit',
    emitSite,
    (emit) =>
      function (this: unknown, event: string | symbol, ...args: unknown[]) {
        if (event === INTERNAL_MESSAGE_EVENT) {
          const message = args[0];
          if (isIpcCarrier(message, secret)) receiveCarrier(state, message);
          return emit.call(this, event, ...args);
        }
        if (event !== 'message') return emit.call(this, event, ...args);
        const seq = ++state.received;
        const carried = state.carriers.get(seq);
        if (carried === undefined) return runFresh(() => emit.call(this, event, ...args));
        state.carriers.delete(seq);
        return runProcess(system, destination, 'message', carried.carrier, carried.id, () => emit.call(this, event, ...args));
      },
  );
}

function receiveCarrier(state: IpcState, message: IpcCarrierMessage): void {
  if (message.cancel) {
    state.carriers.delete(message.seq);
    return;
  }
  if (message.seq <= state.received) return;
  if (state.carriers.size >= MAX_PENDING_CARRIERS) {
    for (const seq of state.carriers.keys()) if (seq <= state.received || state.carriers.size >= MAX_PENDING_CARRIERS) state.carriers.delete(seq);
  }
  state.carriers.set(message.seq, message);
}
