import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { RequireInTheMiddleSingleton } from '@opentelemetry/instrumentation/build/src/platform/node/RequireInTheMiddleSingleton';
import { wrap } from '../patch/wrap.js';

const NODE_MODULES = `${sep}node_modules${sep}`;

type RequireFn = (this: { filename?: unknown }, id: string) => unknown;

/**
 * Creates @opentelemetry/instrumentation's require-in-the-middle hook (one per process and worker
 * thread, shared by every instrumentation of this copy) with a gate in front of it: a `require()`
 * that cannot reach a package some instrumentation registered skips the hook.
 *
 * Why: the hook sees every `require()` of the process and, for each, resolves the id a second time
 * and then the package's main file a third time, to learn which module it is; for an app that loads
 * express, pg and ioredis (≈ 490 requires) that is ≈ 25 ms of startup spent on packages no
 * instrumentation patches. The gate decides from the id alone, without touching the file system:
 * - a bare id (`express`, `@redis/client/dist/x`) reaches the package its name begins with;
 * - a relative or absolute id reaches the package after the last `node_modules` of the path it
 *   names, or none (the app's own files, which the hook never matches either);
 * - built-ins, `#imports` and anything else unusual always go through the hook.
 * Packages registered later (an instrumentation loaded as the app first loads its package, or one a
 * startup hook enables) open the gate from then on; nothing registered is ever skipped.
 *
 * Does nothing when the hook already exists (an instrumentation of this copy was created before):
 * the gate must sit directly on top of the hook it skips. Never throws.
 * @see require-in-the-middle, `Hook` (`Module.prototype.require` replaced; the previous one kept as `_origRequire`)
 */
export function gateRequireHook(): void {
  const singleton = RequireInTheMiddleSingleton as unknown as { _instance?: unknown; getInstance(): { register(moduleName: string, onRequire: unknown): unknown } };
  if (singleton._instance !== undefined) return;
  const Module = require('node:module') as { prototype: { require: RequireFn } };
  const below = Module.prototype.require;
  const instance = singleton.getInstance();
  if (Module.prototype.require === below) return;
  const registered = new Set<string>();
  const register = instance.register;
  instance.register = function (this: unknown, moduleName: string, onRequire: unknown) {
    if (typeof moduleName === 'string') registered.add(packageName(moduleName) ?? moduleName);
    return register.call(this, moduleName, onRequire);
  };
  wrap(Module.prototype, 'require', { component: 'instrumentations', id: 'require-gate.Module#require', otherwise: 'every require() goes through require-in-the-middle' }, (hooked) =>
    function (this: { filename?: unknown }, id: string) {
      // Every argument passed on, as require-in-the-middle's own wrapper does.
      return Reflect.apply(skips(this, id, registered) ? below : hooked, this, arguments);
    },
  );
}

/** Whether the require of `id` from `parent` can reach no registered package. */
function skips(parent: { filename?: unknown }, id: unknown, registered: ReadonlySet<string>): boolean {
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
  const pkg = packageName(path.slice(at + NODE_MODULES.length).split(sep).join('/'));
  return pkg !== undefined && !registered.has(pkg);
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
