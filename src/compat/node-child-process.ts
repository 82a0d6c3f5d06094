/**
 * Node.js internals of node:child_process.
 * - Relies on: (1) `ChildProcess.prototype.spawn(options)` receiving the child's environment as `options.envPairs`
 *   (`['NAME=value', …]`, built by `normalizeSpawnArguments` in lib/child_process.js); (2) an IPC message whose
 *   `cmd` starts with `NODE_` being emitted as `'internalMessage'` on the receiving process or child, and never as
 *   `'message'` (lib/internal/child_process.js, `handleMessage`).
 * - Since: both Node.js 0.x (cluster is built on them); Node.js 20 to 26.
 * - When `envPairs` is gone ({@link envPairsOf} returns undefined): the child starts without the preload flags and
 *   `TRACEPARENT` (untraced, or traced as a new trace), never failing. When `'internalMessage'` is renamed: carriers
 *   are no longer seen, so IPC messages run outside their sender's trace, and (NODE_ prefix kept) never reach the app.
 * Used by src/workers/child-process.ts and src/workers/ipc-entry.ts; test/unit/compat.test.mjs.
 */

/** The event Node.js emits for an IPC message whose `cmd` starts with {@link INTERNAL_MESSAGE_PREFIX}. */
export const INTERNAL_MESSAGE_EVENT = 'internalMessage';

/** The `cmd` prefix that makes Node.js route an IPC message to {@link INTERNAL_MESSAGE_EVENT}. */
export const INTERNAL_MESSAGE_PREFIX = 'NODE_';

/** `options.envPairs` of a `ChildProcess#spawn()` call, or undefined when it is not an array. Never throws. */
export function envPairsOf(options: unknown): string[] | undefined {
  const pairs = (options as { envPairs?: unknown } | null | undefined)?.envPairs;
  return Array.isArray(pairs) ? (pairs as string[]) : undefined;
}
