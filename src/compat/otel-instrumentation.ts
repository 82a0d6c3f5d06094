/**
 * OpenTelemetry JS internal of @opentelemetry/instrumentation: the require-in-the-middle registry.
 * - Relies on: `RequireInTheMiddleSingleton._instance` (the one instance of a copy of the package, made by the
 *   first instrumentation of that copy, in build/src/platform/node/RequireInTheMiddleSingleton.js) and its
 *   `_moduleNameTrie`, whose `search(name)` lists the registrations for a module name.
 * - Since: @opentelemetry/instrumentation 0.3x (the singleton); checked against the version in dependencies.
 * - When it is gone ({@link moduleNameTrieOf} returns undefined): src/instrumentations/step-aside.ts cannot tell
 *   which modules a startup hook's own instrumentations cover, said at DEBUG; tracehook's own instrumentations of
 *   those modules then stay enabled beside the hook's (as before step-aside existed).
 * - `_instance` alone ({@link hasRequireHookInstance}): whether this copy's require-in-the-middle hook exists yet. When it
 *   is gone the answer is false, and src/instrumentations/require-gate.ts relies on its second check: it gates only
 *   when `getInstance()` has just replaced `Module.prototype.require` (an instance made earlier would not), so a gate
 *   is never put over a hook it did not see made.
 * Used by src/instrumentations/step-aside.ts, src/instrumentations/require-gate.ts; test/unit/compat.test.mjs.
 */
import { sep } from 'node:path';

/** A registry of module names: `search(name)` lists what is registered for `name`. */
export interface ModuleNameTrie {
  search(name: string, options?: object): unknown[];
}

/** The file of each copy of @opentelemetry/instrumentation that holds the singleton (ends a `require.cache` key). */
export const RITM_SINGLETON_FILE = ['@opentelemetry', 'instrumentation', 'build', 'src', 'platform', 'node', 'RequireInTheMiddleSingleton.js'].join(sep);

/**
 * The `_moduleNameTrie` of `exports.RequireInTheMiddleSingleton._instance` (the exports of
 * {@link RITM_SINGLETON_FILE}), or undefined: no instance yet (none is ever created here) or the internals moved.
 */
export function moduleNameTrieOf(exports: unknown): ModuleNameTrie | undefined {
  const instance = (exports as { RequireInTheMiddleSingleton?: { _instance?: { _moduleNameTrie?: Partial<ModuleNameTrie> } } } | null | undefined)?.RequireInTheMiddleSingleton?._instance;
  const trie = instance?._moduleNameTrie;
  return typeof trie?.search === 'function' ? (trie as ModuleNameTrie) : undefined;
}

/**
 * Whether `singleton` (the `RequireInTheMiddleSingleton` class of a copy of @opentelemetry/instrumentation) made its
 * one instance yet (its static `_instance`); false when it did not, or when that property is gone. Never throws.
 */
export function hasRequireHookInstance(singleton: unknown): boolean {
  return typeof singleton === 'function' && (singleton as { _instance?: unknown })._instance !== undefined;
}
