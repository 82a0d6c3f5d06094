import { constants } from 'node:os';
import { signalHandleListener } from '../compat/node-signals.js';
import { logDebug } from '../diag/logger.js';
import { isPatched, wrap } from '../patch/wrap.js';
import { stateKey } from '../state-key.js';

/**
 * The signals whose default action ends the process and after which spans are flushed. SIGHUP is
 * one of them: a closed terminal or `kill -HUP` ends an app that does not handle it; so are SIGQUIT
 * (Ctrl-\, its default action also dumps core) and SIGUSR2 (nodemon's restart signal), which
 * lost every queued span before. After the flush the same signal is raised with no listener, so the
 * default action (core dump included) is the untraced one. Not listened to: SIGUSR1 (Node starts
 * its inspector), SIGPROF and SIGVTALRM (profilers), SIGALRM and SIGXCPU (rare; not covered yet),
 * and the synchronous SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT (no JavaScript can run safely).
 */
export const EXIT_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'] as const;
export type ExitSignal = (typeof EXIT_SIGNALS)[number];

/**
 * How the preload listens to signals without the app, or a library, seeing a listener of ours.
 *
 * Only a listener makes Node catch a signal (with none, the default action ends the process at
 * once), so the preload must be one. But libraries decide from what they see: signal-exit (v3 and
 * v4; under execa, ora, write-file-atomic, foreground-child, …) ends the process itself only when
 * `process.listeners(sig).length` equals its own count, and stands aside otherwise; a visible
 * listener of ours made it stand aside while ours left the ending to the app, so nothing ended.
 * OpenTelemetry's own `register` preload adds a visible SIGTERM listener that never re-raises;
 * dd-trace listens to no signal and loses what is queued. So the preload's listeners are left out
 * of `process.listeners()`, `rawListeners()`, `listenerCount()` and `eventNames()`: the app and its
 * libraries see exactly their own listeners, as untraced.
 *
 * Node itself closes a signal's handle when `process.listenerCount(sig)` is 0 after a
 * `'removeListener'` event (lib/internal/process/per_thread.js, `stopListeningIfSignal`), so while
 * a `'removeListener'` event is emitted the true count is reported; otherwise the app removing its
 * own last listener would stop the preload's from being called.
 */
interface SignalPatch {
  hidden: Set<(...args: unknown[]) => unknown>;
  /** What runs, in order, when `process` emits each event of {@link onProcessEvent}, before the app's listeners. */
  handlers: Map<string, Listener[]>;
  /** The preload's listener of each signal, registered while the app has none, or one, of its own (see {@link addHiddenListener}). */
  ours: Map<string, Listener>;
  removing: number;
  /** When each event name got its first visible listener (its place in `eventNames()` untraced). */
  created: Map<string | symbol, number>;
  seq: number;
}

const PATCH_KEY = stateKey('signals');

type Listener = (...args: unknown[]) => unknown;
type ProcessWithPatch = NodeJS.Process & { [PATCH_KEY]?: SignalPatch };

function patch(): SignalPatch {
  const proc = process as ProcessWithPatch;
  if (proc[PATCH_KEY]) return proc[PATCH_KEY];
  const state: SignalPatch = { hidden: new Set(), handlers: new Map(), ours: new Map(), removing: 0, created: new Map(), seq: 0 };
  proc[PATCH_KEY] = state;
  if (signalHandleListener() === undefined) logDebug('exit', "Node.js's stopListeningIfSignal is not found: the app removing its last signal listener may end the preload's signal handling");
  const visible = (list: Listener[]) => (state.hidden.size === 0 ? list : list.filter((l) => !state.hidden.has(l)));
  const { listeners, rawListeners, listenerCount, eventNames, emit } = process as unknown as Record<string, (...a: unknown[]) => unknown>;
  define(
    'listeners',
    () =>
      function (this: unknown, type: unknown) {
        return visible(Reflect.apply(listeners, this, [type]) as Listener[]);
      },
  );
  define(
    'rawListeners',
    () =>
      function (this: unknown, type: unknown) {
        return visible(Reflect.apply(rawListeners, this, [type]) as Listener[]);
      },
  );
  define(
    'listenerCount',
    () =>
      function (this: unknown, type: unknown, listener?: unknown) {
        const count = Reflect.apply(listenerCount, this, listener === undefined ? [type] : [type, listener]) as number;
        if (state.removing > 0 || this !== process || listener !== undefined) return count;
        const all = Reflect.apply(listeners, this, [type]) as Listener[];
        return count - all.filter((l) => state.hidden.has(l)).length;
      },
  );
  // Untraced, a name is listed in the order its first listener was added; the preload's hidden
  // listeners made the signal names first, so names are listed by when the app's first came.
  const order = (n: string | symbol) => state.created.get(n) ?? -1;
  define(
    'eventNames',
    () =>
      function (this: unknown) {
        const names = Reflect.apply(eventNames, this, []) as (string | symbol)[];
        if (this !== process) return names;
        return names.filter((n) => (process.listeners(n as NodeJS.Signals) as Listener[]).length > 0).sort((a, b) => order(a) - order(b));
      },
  );
  // process.emit carries every IPC message and warning: no rest/spread arrays per call.
  define(
    'emit',
    () =>
      function (this: unknown, type: unknown, name?: unknown, listener?: unknown) {
        if (type === 'newListener' && this === process && !state.hidden.has(listener as Listener)) {
          const before = process.listeners(name as NodeJS.Signals).length;
          if (before === 0) state.created.set(name as string, ++state.seq);
          // The app's second listener: the first keeps Node listening, so ours steps out and the app's count is exact.
          else stepAside(state, name as string);
        }
        const handlers = this === process && typeof type === 'string' ? state.handlers.get(type) : undefined;
        if (handlers !== undefined) runHandlers(handlers, type as string, name, listener);
        if (type !== 'removeListener') return Reflect.apply(emit, this, arguments);
        state.removing++;
        try {
          return Reflect.apply(emit, this, arguments);
        } finally {
          state.removing--;
          if (this === process && !state.hidden.has(listener as Listener)) stepIn(state, name as string);
        }
      },
  );
  return state;
}

/** Removes the preload's listener of `signal` while the app has a listener of its own for it. */
function stepAside(state: SignalPatch, signal: string): void {
  const ours = state.ours.get(signal);
  if (ours !== undefined && isListening(signal, ours)) process.removeListener(signal, ours);
}

/** Registers the preload's listener of `signal` again once the app has removed its last own one. */
function stepIn(state: SignalPatch, signal: string): void {
  const ours = state.ours.get(signal);
  if (ours !== undefined && !isListening(signal, ours) && process.listeners(signal as NodeJS.Signals).length === 0) process.on(signal, ours);
}

function runHandlers(handlers: Listener[], type: string, a: unknown, b: unknown): void {
  for (const handler of handlers) {
    try {
      handler(a, b);
    } catch (err) {
      logDebug('exit', `${type}: ${(err as Error)?.message ?? err}`);
    }
  }
}

/**
 * Runs `handler` each time `process` emits `event`, before the app's listeners, with the event's first two
 * arguments (`exit`'s code; `uncaughtExceptionMonitor`'s error and origin), without adding a listener: Node
 * emits these events whether or not anyone listens, and a listener of ours would count towards the app's
 * `setMaxListeners()` bound (10 by default), so that an app with 10 `exit` listeners of its own would see a
 * MaxListenersExceededWarning it does not see untraced. A handler that throws is written at DEBUG level.
 */
export function onProcessEvent(event: 'exit' | 'beforeExit' | 'uncaughtExceptionMonitor', handler: (a: unknown, b: unknown) => void): void {
  const handlers = patch().handlers;
  handlers.set(event, [...(handlers.get(event) ?? []), handler]);
}

/** Replaces a method of `process` (an own property of the same enumerability; site `signals.process.<name>`). */
function define(name: string, wrapper: (original: (...args: unknown[]) => unknown) => (...args: never[]) => unknown): void {
  const site = { component: 'exit', id: `signals.process.${name}`, otherwise: "the preload's signal listeners may be visible to the app" };
  wrap(process as unknown as Record<string, (...args: unknown[]) => unknown>, name, site, wrapper as (original: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown);
}

/**
 * Adds `listener` for `signal`, invisible to the app (see above), and keeps it out of the app's way: from
 * the app's second listener of `signal` on it is not registered (the app's own keep Node listening), and it is
 * registered again when the app removes its last one. So `process.setMaxListeners()`'s bound (10 by
 * default) is met at the same count as untraced, never by one listener of ours. One listener per signal.
 */
export function addHiddenListener(signal: ExitSignal, listener: Listener): void {
  const state = patch();
  state.hidden.add(listener);
  state.ours.set(signal, listener);
  if (process.listeners(signal).length >= 2) return;
  try {
    process.on(signal, listener);
  } catch (err) {
    // A platform without this signal (Windows has no SIGQUIT or SIGUSR2): nothing to flush on.
    logDebug('exit', `cannot listen to ${signal}: ${(err as Error)?.message ?? err}`);
  }
}

/** Removes a listener added by {@link addHiddenListener}, for good. */
export function removeHiddenSignalListener(signal: ExitSignal, listener: Listener): void {
  const state = patch();
  if (state.ours.get(signal) === listener) state.ours.delete(signal);
  process.removeListener(signal, listener);
  state.hidden.delete(listener);
}

/** How many listeners of the app's (and its libraries') `signal` has. */
export function appSignalListeners(signal: ExitSignal): number {
  return process.listeners(signal).length;
}

/**
 * Whether `listener` (added by {@link addHiddenListener}) is in `process`'s own list for `signal`, the one Node
 * calls: it steps out while the app has listeners, and the app may have removed them all.
 */
export function isListening(signal: string, listener: Listener): boolean {
  const raw = Object.getPrototypeOf(process).listeners as (type: string) => Listener[];
  return Reflect.apply(raw, process, [signal]).includes(listener);
}

/** The signal name of `signal` as given to `process.kill` (name or number; default SIGTERM), if it is one of ours. */
export function exitSignalOf(signal: unknown): ExitSignal | undefined {
  if (signal === undefined) return 'SIGTERM';
  const name = typeof signal === 'number' ? Object.keys(constants.signals).find((k) => constants.signals[k as keyof typeof constants.signals] === signal) : signal;
  return (EXIT_SIGNALS as readonly unknown[]).includes(name) ? (name as ExitSignal) : undefined;
}

/**
 * Makes `process.kill(process.pid, sig)` end the process at once, as untraced, when no listener of
 * the app's would catch `sig`: `beforeKill(sig)` runs first (the synchronous exit steps and the
 * removal of the preload's hidden listener), then the signal is sent and its default action ends
 * the process before the next line of the app. Without this, the preload's listener would catch
 * the signal, and the app would run on (and with nothing left to do, end with status 0).
 */
export function patchSelfKill(beforeKill: (signal: ExitSignal) => void): void {
  if (isPatched(process.kill, 'signals.process.kill')) return;
  define(
    'kill',
    (original) =>
      function kill(this: unknown, pid: number, signal?: string | number): true {
        const sig = Number(pid) === process.pid ? exitSignalOf(signal) : undefined;
        if (sig !== undefined && appSignalListeners(sig) === 0) {
          try {
            beforeKill(sig);
          } catch (err) {
            logDebug('exit', `before ${sig}: ${(err as Error)?.message ?? err}`);
          }
        }
        return Reflect.apply(original, this, [pid, signal]) as true;
      },
  );
}
