/**
 * Node.js internals of the CommonJS loader (`require('node:module')`, the `Module` class).
 * - Relies on: `Module._cache` (what `require.cache` is: filename → module), `Module._nodeModulePaths(dir)` (the
 *   `node_modules` folders a module in `dir` resolves from) and `Module._load(request, parent, isMain)` (what every
 *   `require()` calls). Undocumented, but used by much of the ecosystem (require-in-the-middle, proxyquire, ts-node).
 * - Since: Node.js 0.x; present in Node.js 20 to 26.
 * - When it is gone: {@link moduleInternals} / {@link moduleLoad} return undefined. src/preload/load-bundle.ts then
 *   `require`s the bundle without its V8 code cache (slower start); src/instrumentations/shared-modules.ts leaves
 *   later instrumentations to load their own copy of the OpenTelemetry packages (slower, same behaviour); the HTTP
 *   instrumentation requires node:http through the module hooks instead.
 * test/unit/compat.test.mjs.
 */

/** A CommonJS module record, as `Module._cache` holds it. */
export interface CjsModule {
  id: string;
  filename: string;
  loaded: boolean;
  exports: unknown;
  paths: string[];
}

/** The internals of the `Module` class that tracehook uses. */
export interface ModuleInternals {
  new (id: string, parent?: unknown): CjsModule;
  _cache: Record<string, CjsModule | undefined>;
  _nodeModulePaths(from: string): string[];
}

/** `Module._load`: what `require(request)` calls. */
export type ModuleLoad = (request: string, parent: unknown, isMain: boolean) => unknown;

/** The `Module` class with `_cache` and `_nodeModulePaths`, or undefined when either is gone. Never throws. */
export function moduleInternals(module: unknown = require('node:module')): ModuleInternals | undefined {
  if (typeof module !== 'function') return undefined;
  const m = module as unknown as Partial<ModuleInternals>;
  return typeof m._cache === 'object' && m._cache !== null && typeof m._nodeModulePaths === 'function' ? (m as ModuleInternals) : undefined;
}

/** `Module._load`, or undefined when it is gone. Never throws. */
export function moduleLoad(module: unknown = require('node:module')): ModuleLoad | undefined {
  const load = (module as { _load?: unknown } | undefined)?._load;
  return typeof load === 'function' ? (load as ModuleLoad) : undefined;
}
