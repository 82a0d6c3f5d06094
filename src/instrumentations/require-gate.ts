import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { RequireInTheMiddleSingleton } from '@opentelemetry/instrumentation/build/src/platform/node/RequireInTheMiddleSingleton';
import { routeRequire } from '../patch/module-hooks.js';
import { nameAsMethod } from '../patch/wrap.js';
import { getPreloadState } from '../state.js';
import { hasRequireHookInstance } from '../compat/otel-instrumentation.js';

const NODE_MODULES = `${sep}node_modules${sep}`;

type RequireFn = (this: { filename?: unknown }, id: string) => unknown;
type RequireRouteTarget = (this: unknown, id: string) => unknown;

/**
 * Creates @opentelemetry/instrumentation's require-in-the-middle hook (one per process and worker
 * thread, shared by every instrumentation of this copy) with a gate in front of it: a `require()`
 * that cannot reach a package some instrumentation registered skips the hook.
 *
 * Why: the hook sees every `require()` of the process and, for each, resolves the id a second time
 * and then the package's main file a third time, to learn which module it is; for an app that loads
 * express, pg and ioredis (hundreds of requires) that is a large share of startup (bench: startup, express + pg + ioredis row) spent on packages no
 * instrumentation patches. The gate decides from the id alone, without touching the file system:
 * - a bare id (`express`, `@redis/client/dist/x`) reaches the package its name begins with;
 * - a relative or absolute id reaches the package after the last `node_modules` of the path it
 *   names, or none (the app's own files, which the hook never matches either);
 * - built-ins, `#imports` and anything else unusual always go through the hook;
 * - in a package whose instrumentations all declared what they patch ({@link declareModuleFiles}), its own files'
 *   relative requires of each other skip the hook too, unless they may name one of the files patched.
 * Packages registered later (an instrumentation loaded as the app first loads its package, or one a
 * startup hook enables) open the gate from then on; a registered package's files skip the hook only as the last
 * point says.
 * Each package whose patches run is also told to the code cache (`codeReached` of the preload state), so that the
 * cache comes to hold that code.
 *
 * Does nothing when the hook already exists (an instrumentation of this copy was created before):
 * the gate must sit directly on top of the hook it skips. Never throws.
 * @see require-in-the-middle, `Hook` (`Module.prototype.require` replaced; the previous one kept as `_origRequire`)
 */
export function gateRequireHook(): void {
  const singleton = RequireInTheMiddleSingleton as unknown as { getInstance(): { register(moduleName: string, onRequire: unknown): unknown } };
  if (hasRequireHookInstance(singleton)) return;
  const Module = require('node:module') as { prototype: { require: RequireFn } };
  const below = Module.prototype.require;
  const instance = singleton.getInstance();
  if (Module.prototype.require === below) return;
  const register = instance.register;
  instance.register = function (this: unknown, moduleName: string, onRequire: unknown) {
    if (typeof moduleName !== 'string' || typeof onRequire !== 'function') return register.call(this, moduleName, onRequire);
    const pkg = packageName(moduleName) ?? moduleName;
    const entry = registrationOf(pkg);
    entry.registrations++;
    // A file inside the package named directly.
    if (moduleName !== pkg) entry.internalFiles = true;
    return register.call(this, moduleName, function (this: unknown) {
      // The patching code about to run (and the request path through it) is worth a code cache that holds it.
      getPreloadState().codeReached?.(pkg);
      return Reflect.apply(onRequire, this, arguments);
    });
  };
  // Node.js's own require, now reached by no property: named so its frames print as they do untraced.
  nameAsMethod(below, 'require');
  // One wrapper shared with tracehook's other module hooks (src/patch/module-hooks.ts): one frame on the app's stacks.
  routeRequire((module, id) => {
    if ((id === 'punycode' || id === 'node:punycode') && !registered.has('punycode')) return requirePunycode;
    return skips(module as { filename?: unknown }, id, registered) ? (below as RequireRouteTarget) : undefined;
  });
  function requirePunycode(this: unknown): unknown {
    return requireAsCaller(below, this as { filename?: unknown }, arguments);
  }
}

/**
 * Calls `load` (Node.js's own `require`, below every hook) for `module` from a frame named after `module.filename`, the
 * requiring file, at the line and column of its `require` call. Node.js 21+ prints DEP0040 as `punycode` first loads
 * unless the first named stack frame outside Node.js (among the nearest 10) is in a `node_modules` folder: without
 * this, that frame is ours (or require-in-the-middle's), so a package's `require('punycode')` warned (and exited 1
 * under `--throw-deprecation`) when tracehook was not installed under `node_modules`, and an app's own never warned
 * when it was. With `--trace-deprecation` the warning's stack shows the caller's line where it would untraced.
 */
function requireAsCaller(load: RequireFn, module: { filename?: unknown }, args: IArguments): unknown {
  const filename = module?.filename;
  if (typeof filename !== 'string') return Reflect.apply(load, module, args);
  const [line, column] = callerPosition(filename);
  const { compileFunction } = load.call(module, 'node:vm') as typeof import('node:vm');
  // The call `f(…)` sits at `line`:`column` of `filename` (lineOffset moves the second line of the body there).
  const call = compileFunction(`return (\n${' '.repeat(column - 1)}f(r, m, a))`, ['f', 'r', 'm', 'a'], { filename, lineOffset: line - 2 });
  return call(Reflect.apply, load, module, args);
}

/** Line and column (1-based) of the nearest stack frame in `filename`; 1, 1 when there is none. */
function callerPosition(filename: string): [number, number] {
  const stack = new Error().stack ?? '';
  const at = stack.indexOf(`${filename}:`);
  const position = at === -1 ? null : /^(\d+):(\d+)/.exec(stack.slice(at + filename.length + 1));
  return position ? [Number(position[1]), Number(position[2])] : [1, 1];
}

/** What the gate knows of one registered package. */
interface Registration {
  /** Registrations of the package or of files in it, by any instrumentation. */
  registrations: number;
  /** Of those, the ones an instrumentation declared ({@link declareModuleFiles}): the package's main export, and `files`. */
  declared: number;
  /** The files inside the package the declared instrumentations patch, relative to its folder, `/`-separated (`lib/client.js`). */
  files: string[];
  /** A registration names a file inside the package itself, or declared one that cannot be placed: every file goes through. */
  internalFiles: boolean;
}

const registered = new Map<string, Registration>();

function registrationOf(pkg: string): Registration {
  let entry = registered.get(pkg);
  if (entry === undefined) registered.set(pkg, (entry = { registrations: 0, declared: 0, files: [], internalFiles: false }));
  return entry;
}

/**
 * Tells the gate which files `instrumentation` patches (its module definitions, read after it was created and
 * enabled). In a package whose every registration is declared here, the relative requires of its own files skip the
 * hook, except those that may name a patched file: all of them (about a hundred for ioredis, each resolved once more by
 * require-in-the-middle) when only the main export is patched (ioredis, amqplib …), all but `./client`
 * (and `.`, `..`) in pg, whose instrumentation also patches `pg/lib/client.js`. Registrations not declared (a startup
 * hook's own instrumentations) keep every file of their packages going through. Never throws.
 */
export function declareModuleFiles(instrumentation: unknown): void {
  try {
    const definitions = (instrumentation as { getModuleDefinitions?: () => Array<{ name?: unknown; files?: unknown[] }> }).getModuleDefinitions?.() ?? [];
    for (const { name, files } of definitions) {
      if (typeof name !== 'string') continue;
      const pkg = packageName(name) ?? name;
      const entry = registrationOf(pkg);
      if (name !== pkg) {
        entry.internalFiles = true;
        continue;
      }
      entry.declared++;
      for (const file of files ?? []) {
        const fileName = (file as { name?: unknown } | undefined)?.name;
        const inPackage = typeof fileName === 'string' ? fileName.split(sep).join('/') : '';
        if (inPackage.startsWith(`${pkg}/`)) entry.files.push(inPackage.slice(pkg.length + 1));
        else entry.internalFiles = true;
      }
    }
  } catch {
    // Not an InstrumentationBase: its packages keep every file going through the hook.
  }
}

/**
 * Whether the require of `id` from `parent` can reach no file an instrumentation patches: no registered package, or
 * (for a relative id) another file of the same package that no declared instrumentation patches. An absolute id
 * always reaches the hook when its package is registered: tracehook itself requires an instrumented package's file
 * that way to have it patched once its instrumentation has loaded.
 */
function skips(parent: { filename?: unknown }, id: unknown, registered: ReadonlyMap<string, Registration>): boolean {
  if (typeof id !== 'string' || id.length === 0 || id.startsWith('#')) return false;
  if (!isRelative(id) && !isAbsolute(id)) {
    if (isBuiltin(id)) return false;
    const pkg = packageName(id);
    return pkg !== undefined && !registered.has(pkg);
  }
  const from = parent?.filename;
  if (typeof from !== 'string' || !isAbsolute(from)) return false;
  // `./x` stays in the requiring file's folder, so in its package: no path to build (most requires inside packages).
  const path = id.startsWith(`.${sep}`) && !id.includes('..') && !id.includes('node_modules') ? from : resolve(dirname(from), id);
  const at = path.lastIndexOf(NODE_MODULES);
  // The app's own files: the hook never matches a path without node_modules.
  if (at === -1) return !path.endsWith(`${sep}node_modules`);
  const pkg = packageOfPath(path, at);
  if (pkg === undefined) return false;
  const entry = registered.get(pkg);
  if (entry === undefined) return true;
  // One of a package's own files requiring another: the app reaches the main export by the package's name, and
  // tracehook by an absolute path once the instrumentation has loaded; only the patched files must go through.
  if (!isRelative(id) || entry.internalFiles || entry.declared !== entry.registrations) return false;
  if (path !== from && packageOfFile(from) !== pkg) return false;
  if (entry.files.length === 0) return true;
  const target = path === from ? resolve(dirname(from), id) : path;
  const inPackage = target
    .slice(target.lastIndexOf(NODE_MODULES) + NODE_MODULES.length + pkg.length + 1)
    .split(sep)
    .join('/');
  return !mayName(inPackage, entry.files);
}

/**
 * Whether a require of `request` (a path relative to the package folder, without the extension or `/index.js` Node.js
 * may add) can load one of `files`: `lib/client` can be `lib/client.js`, `lib/native` `lib/native/client.js`, and
 * the package folder itself (`''`) anything.
 */
function mayName(request: string, files: readonly string[]): boolean {
  return request === '' || files.some((f) => f === request || f.startsWith(`${request}.`) || f.startsWith(`${request}/`));
}

/** `…/node_modules/@scope/name/lib/x.js` → `@scope/name`: the package after the last `node_modules`; undefined outside one. */
export function packageOfFile(path: string): string | undefined {
  return packageOfPath(path, path.lastIndexOf(NODE_MODULES));
}

/** The package of `path`, whose last `node_modules` folder is at `at` (-1: none). */
function packageOfPath(path: string, at: number): string | undefined {
  return at === -1
    ? undefined
    : packageName(
        path
          .slice(at + NODE_MODULES.length)
          .split(sep)
          .join('/'),
      );
}

/** As Node.js tells a relative specifier: `.`, `..`, or beginning with `./` or `../` (`.\\`, `..\\` on Windows). */
function isRelative(id: string): boolean {
  if (id === '.' || id === '..') return true;
  return id.startsWith('./') || id.startsWith('../') || (sep === '\\' && (id.startsWith('.\\') || id.startsWith('..\\')));
}

/** The package a module name or node_modules-relative path begins with: `pg`, `@redis/client`; undefined when it has none. */
function packageName(name: string): string | undefined {
  const parts = name.split('/');
  if (parts[0] === '') return undefined;
  if (parts[0].startsWith('@')) return parts.length > 1 && parts[1] !== '' ? `${parts[0]}/${parts[1]}` : undefined;
  return parts[0];
}
