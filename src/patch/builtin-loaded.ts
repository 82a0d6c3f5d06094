import { isBuiltinInLoadList, moduleLoadList } from '../compat/node-loaded-modules.js';
import { logDebug } from '../diag/logger.js';
import type { PatchSite } from './wrap.js';
import { offRequireReturn, onRequireReturn } from './module-hooks.js';
import { unwrap, wrap } from './wrap.js';

/** The built-ins patched as they load instead of at startup, by what loading them costs a process that never uses them. */
export type WatchedBuiltin = 'child_process' | 'worker_threads' | 'http';

/**
 * The diagnostics channel each watched built-in opens at the top of its internal part as it loads (Node.js 20 to 26):
 * node:http's client part opens `http.client.request.start`, also when node:https loads it.
 */
const CHANNEL_OF: Record<WatchedBuiltin, string> = { child_process: 'child_process', worker_threads: 'worker_threads', http: 'http.client.request.start' };

/** The watched built-in whose load opens channel `name`, if any. */
function builtinOf(name: unknown): WatchedBuiltin | undefined {
  for (const builtin in CHANNEL_OF) if (CHANNEL_OF[builtin as WatchedBuiltin] === name) return builtin as WatchedBuiltin;
  return undefined;
}

const otherwise = 'is patched one microtask after it loads: a child or worker started in that same turn starts untraced';
const SITES: Record<'channel' | 'getBuiltinModule', PatchSite> = {
  channel: {
    component: 'workers',
    id: 'builtin-loaded.diagnostics_channel.channel',
    otherwise: 'a child_process or worker_threads first loaded by an ES module import or by another built-in is patched only when the app requires it',
  },
  getBuiltinModule: { component: 'workers', id: 'builtin-loaded.process.getBuiltinModule', otherwise: `a child_process or worker_threads first loaded with process.getBuiltinModule() ${otherwise}` },
};

/** Callbacks by the built-in they wait for. */
const pending = new Map<string, Array<() => void>>();
/** Watched built-ins that have opened their diagnostics channel: loaded, or loading now. */
const loading = new Set<string>();
let watching = false;

/**
 * Whether built-in `name` (`https`, `worker_threads` …) is loaded in this thread; true when Node.js does not say
 * (`process.moduleLoadList` is not an array), so that a caller then acts at once.
 */
export function isBuiltinLoaded(name: string): boolean {
  return isBuiltinInLoadList(moduleLoadList(), name);
}

/**
 * Calls `callback` once built-in `name` is loaded in this thread: now if it is, else as it loads, before the code
 * that loaded it can use it. node:child_process and node:worker_threads cost milliseconds of startup each (bench: startup, hello-world row),
 * node:http (with node:net) ≈ 8 ms and ≈ 0.8 MiB of heap (bench: startup, a one-line script and a worker's start); a
 * process or worker thread that never uses them no longer pays them.
 * How a load is seen, however it happens: Node.js opens the module's diagnostics channel
 * (`dc.channel('child_process')`, `dc.channel('worker_threads')`, `dc.channel('http.client.request.start')`: {@link CHANNEL_OF})
 * at the top of its internal part (Node.js 20 to 26), and `diagnostics_channel.channel` is wrapped to notice. The callback then runs as soon as the load is
 * complete: as the `require()` or `process.getBuiltinModule()` that loaded it (directly, or through another
 * built-in such as node:cluster) returns, or else in a microtask, which comes before the body of an ES module
 * importing it (linking awaits between the load and the evaluation), so its named imports are synced by then.
 * The two wrappers (and the `require()` callback) are removed once every watched built-in has loaded. A callback that throws is written at
 * DEBUG level. Never throws.
 */
export function whenBuiltinLoaded(name: WatchedBuiltin, callback: () => void): void {
  if (isBuiltinLoaded(name)) return void runGuarded(name, callback);
  const callbacks = pending.get(name);
  if (callbacks !== undefined) return void callbacks.push(callback);
  pending.set(name, [callback]);
  watch();
}

function watch(): void {
  if (watching) return;
  watching = true;
  const dc = require('node:diagnostics_channel') as { channel: (name: string | symbol) => unknown };
  wrap(
    dc,
    'channel',
    SITES.channel,
    (channel) =>
      function (this: unknown, name: string | symbol) {
        const result = Reflect.apply(channel, this, arguments);
        const builtin = builtinOf(name);
        if (builtin !== undefined && pending.has(builtin) && !loading.has(builtin)) {
          loading.add(builtin);
          queueMicrotask(settleLoaded);
        }
        return result;
      },
  );
  // The loads that return synchronously: settled as they return, so the module can be used in the same turn.
  const settleOnReturn = (original: ((...args: never[]) => unknown) | undefined) =>
    function (this: unknown) {
      const result = Reflect.apply(original!, this, arguments);
      if (loading.size > 0) settleLoaded();
      return result;
    };
  // Through tracehook's one Module#require wrapper (src/patch/module-hooks.ts): no frame of its own on the app's stacks.
  onRequireReturn(settleIfLoading);
  const proc = process as unknown as { getBuiltinModule?: (...args: never[]) => unknown };
  if (typeof proc.getBuiltinModule === 'function') wrap(proc, 'getBuiltinModule', SITES.getBuiltinModule, settleOnReturn);
}

function settleIfLoading(): void {
  if (loading.size > 0) settleLoaded();
}

/** Runs the callbacks of the built-ins that have loaded, once; the watch ends when nothing is pending. */
function settleLoaded(): void {
  for (const name of [...loading]) {
    loading.delete(name);
    const callbacks = pending.get(name);
    pending.delete(name);
    for (const callback of callbacks ?? []) runGuarded(name, callback);
  }
  if (pending.size > 0 || !watching) return;
  watching = false;
  unwrap(require('node:diagnostics_channel') as { channel: unknown }, 'channel', SITES.channel);
  offRequireReturn(settleIfLoading);
  unwrap(process as unknown as { getBuiltinModule?: unknown }, 'getBuiltinModule', SITES.getBuiltinModule);
}

function runGuarded(name: string, callback: () => void): void {
  try {
    callback();
  } catch (err) {
    logDebug('workers', `patching node:${name} failed: ${(err as Error)?.message ?? err}`);
  }
}
