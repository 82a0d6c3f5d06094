/**
 * Node.js internal: `process.moduleLoadList`, the list of internal modules and bindings loaded in this thread.
 * - Relies on: an array of strings, one per load, a built-in module written `NativeModule <id>` (`NativeModule https`,
 *   `NativeModule internal/worker`), a binding `Internal Binding <name>` (lib/internal/bootstrap/realm.js).
 * - Since: Node.js 0.x (the format `NativeModule <id>` since the loaders' rewrite in Node.js 12); Node.js 20 to 26.
 * - When it is gone (not an array): {@link isBuiltinInLoadList} says every built-in is loaded, so callers patch at once
 *   (node:https, node:child_process and node:worker_threads are then loaded at startup: a few ms more, no lost trace).
 *   When the format changed, a built-in looks not loaded: its patch waits for it to load (a diagnostics channel
 *   or node:https's agent), then applies.
 * Used by src/patch/builtin-loaded.ts; test/unit/compat.test.mjs.
 */

/** `process.moduleLoadList`, or undefined when it is not an array of strings as expected. */
export function moduleLoadList(proc: unknown = process): readonly string[] | undefined {
  const list = (proc as { moduleLoadList?: unknown }).moduleLoadList;
  return Array.isArray(list) ? (list as string[]) : undefined;
}

/**
 * Whether built-in `name` (`https`, `worker_threads`) is in `list`; true when there is no list (Node.js does not say,
 * so the caller acts at once).
 */
export function isBuiltinInLoadList(list: readonly string[] | undefined, name: string): boolean {
  return list === undefined || list.includes(`NativeModule ${name}`);
}
