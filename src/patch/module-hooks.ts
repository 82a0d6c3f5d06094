import type { PatchSite } from './wrap.js';
import { isPatched, wrap } from './wrap.js';
import { stateKey } from '../state-key.js';

/** A CommonJS module as `Module.prototype.require` and `load` see it (`this`). */
export interface CjsModule {
  exports: unknown;
  filename?: unknown;
  require(id: string): unknown;
}

/** `Module.prototype.require`, or a function standing in for it. */
export type RequireFn = (this: unknown, id: string) => unknown;

/**
 * Chooses, for one `require(id)` from `module`, the function it goes to instead of the one below tracehook's wrapper
 * (the require gate: Node.js's own `require`, past require-in-the-middle); undefined keeps the one below.
 */
export type RequireRoute = (module: unknown, id: unknown) => RequireFn | undefined;

/**
 * Runs before `module` (file `filename`) loads; `required` says whether a `require()` loads it (else an ES module's
 * `import`, or the entry). May return a function to run once it has loaded (not when its top level threw). Must not throw.
 */
export type LoadHook = (module: CjsModule, filename: string, required: boolean) => (() => void) | undefined;

/** What the two wrappers run; one per process or thread, shared by every copy of tracehook's code loaded in it. */
interface ModuleHookState {
  route: RequireRoute | undefined;
  /** Run as each `require()` returns (not when it throws). */
  onReturn: Set<() => void>;
  load: LoadHook[];
  /** A `require()` is running and has loaded no module yet: the next module loaded is a `require()`'s. */
  requiring: boolean;
}

const STATE_KEY = stateKey('moduleHooks');
const REQUIRE: PatchSite = {
  component: 'instrumentations',
  id: 'module-hooks.Module#require',
  otherwise: 'every require() goes through require-in-the-middle, and CommonJS packages imported from ES modules stay uninstrumented',
};
const LOAD: PatchSite = {
  component: 'instrumentations',
  id: 'module-hooks.Module#load',
  otherwise: 'instrumentations of packages loaded later are never loaded, and CommonJS packages imported from ES modules stay uninstrumented',
};

/**
 * Every concern of tracehook that needs to see CommonJS modules load (the require gate, the lazily loaded
 * instrumentations, the ES module to CommonJS bridge, built-ins patched as they load) shares one wrapper of
 * `Module.prototype.require` and one of `Module.prototype.load`. Each wrapper is a frame on the stack of an error
 * thrown at the top level of a module: layered wrappers, one per concern, gave five frames per `require` level,
 * which pushed the app's own frames off a stack printed with the default `Error.stackTraceLimit` of 10; these
 * give two. Neither can be a bound function or a builtin (which V8 leaves off stacks): each must run code before
 * the call (choose the function, note that a `require()` is running, learn the file) and after it.
 */
function state(): ModuleHookState {
  const g = globalThis as typeof globalThis & { [STATE_KEY]?: ModuleHookState };
  return (g[STATE_KEY] ??= { route: undefined, onReturn: new Set(), load: [], requiring: false });
}

function Module(): { prototype: { require: RequireFn; load(this: CjsModule, filename: string): unknown } } {
  return require('node:module');
}

/** Wraps `Module.prototype.require` once (over whatever is there now); a no-op when tracehook's wrapper is in its chain. */
function hookRequire(): void {
  const s = state();
  wrap(
    Module().prototype,
    'require',
    REQUIRE,
    (below) =>
      function (this: unknown, id: string) {
        const target = s.route?.(this, id) ?? below;
        s.requiring = true;
        let result: unknown;
        try {
          // Every argument passed on, as require-in-the-middle's own wrapper does.
          result = Reflect.apply(target, this, arguments);
        } finally {
          s.requiring = false;
        }
        for (const callback of s.onReturn) callback();
        return result;
      },
  );
}

/**
 * Routes each `require()` through `route` (see {@link RequireRoute}); for the require gate, which must sit directly
 * on top of require-in-the-middle's hook: call it right after that hook replaced `Module.prototype.require`.
 * @returns false (nothing changed) when tracehook's wrapper is already installed below the current `require`, or
 *   `require` could not be wrapped
 */
export function routeRequire(route: RequireRoute): boolean {
  const proto = Module().prototype;
  if (isPatched(proto.require, REQUIRE.id)) return false;
  hookRequire();
  if (!isPatched(proto.require, REQUIRE.id)) return false;
  state().route = route;
  return true;
}

/** Runs `callback` as each `require()` returns, until {@link offRequireReturn}. */
export function onRequireReturn(callback: () => void): void {
  hookRequire();
  state().onReturn.add(callback);
}

/** Stops {@link onRequireReturn}'s `callback`. The wrapper stays (a wrapper above it may hold it). */
export function offRequireReturn(callback: () => void): void {
  state().onReturn.delete(callback);
}

/**
 * Runs `hook` as each CommonJS module loads (see {@link LoadHook}), for the life of the thread. Needs the `require()`
 * wrapper too, to tell a `require()`'s loads from an ES module's imports.
 */
export function onModuleLoad(hook: LoadHook): void {
  hookRequire();
  const s = state();
  s.load.push(hook);
  wrap(
    Module().prototype,
    'load',
    LOAD,
    (load) =>
      function (this: CjsModule, filename: string) {
        const required = s.requiring;
        s.requiring = false;
        let after: Array<() => void> | undefined;
        for (const each of s.load) {
          const callback = each(this, filename, required);
          if (callback !== undefined) (after ??= []).push(callback);
        }
        const result = Reflect.apply(load, this, arguments);
        if (after !== undefined) for (const callback of after) callback();
        return result;
      },
  );
}

/**
 * Requires `module`'s own file once more, now that it has loaded (a cache hit), through the `require()` hooks installed
 * meanwhile (require-in-the-middle's), and keeps the exports they patched or replaced.
 * @returns the first line of the error's message when that threw (the module itself loaded; only patching failed)
 */
export function requireAgain(module: CjsModule, filename: string): string | undefined {
  try {
    const exports = module.require(filename);
    if (exports !== module.exports) module.exports = exports;
    return undefined;
  } catch (err) {
    return String((err as Error)?.message ?? err).split('\n')[0];
  }
}
