/**
 * Node.js internal: `process._eval`, the code of `node -e` / `node -p`.
 * - Relies on: `process._eval` being set (a string) when the main code comes from `-e`/`--eval` or `-p`/`--print`,
 *   and undefined otherwise (lib/internal/main/eval_string.js; src/node_options.cc). Undocumented.
 * - Since: Node.js 0.x; Node.js 20 to 26.
 * - When it is gone ({@link isEvalRun} is false for `node -e`): the app directory of `node -e code arg` is taken
 *   from `arg` (its first argument, in `process.argv[1]`) instead of the working directory, so a startup hook's or
 *   exporter's package named by a bare specifier may not be found from the app and is resolved from tracehook's
 *   own place instead; `node -e` without arguments is unchanged.
 * Used by src/startup-hook/resolve-from-app.ts; test/unit/compat.test.mjs.
 */

/** Whether this process's main code is `node -e` / `node -p` code (`process._eval` is set). Never throws. */
export function isEvalRun(proc: unknown = process): boolean {
  return (proc as { _eval?: unknown } | null | undefined)?._eval !== undefined;
}
