import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';
import { isEvalRun } from '../compat/node-process.js';
import { isMainThread } from '../workers/thread.js';
import { ENV_DATA_KEY } from '../workers/protocol.js';
import type { WorkerEnvironmentData } from '../workers/protocol.js';

/**
 * The directory the app's own bare `require()`s and `import`s resolve from: its entry file's
 * (`process.argv[1]`, through symlinks as Node.js loads it), or the working directory when there is no
 * entry file (`node -e`, `-p`, stdin, the REPL), whose code resolves from there. In a worker thread, the
 * one its instrumented parent passed ({@link WorkerEnvironmentData}), else undefined. Never the working
 * directory when there is an entry file: a job runner may start the app with its working directory under
 * `/tmp`, where anyone can plant a `node_modules`.
 */
export function appDirectory(entry = process.argv[1]): string | undefined {
  if (!isMainThread) {
    const wt = require('node:worker_threads') as typeof import('node:worker_threads');
    const data = wt.getEnvironmentData(ENV_DATA_KEY) as Partial<WorkerEnvironmentData> | undefined;
    return typeof data?.appDirectory === 'string' ? data.appDirectory : undefined;
  }
  const evaluated = isEvalRun();
  if (evaluated || !entry || entry === '-') return process.cwd();
  try {
    return dirname(realpathSync(entry));
  } catch {
    // `node app` names app.js: its directory is the same.
    return dirname(entry);
  }
}

/**
 * Resolves `specifier` (a package name, possibly with a subpath) as code in `from` would, through the
 * `node_modules` folders of `from` and its ancestors only: never through `NODE_PATH` or the global
 * folders (`~/.node_modules`, `<prefix>/lib/node`), which hold nothing the app installed for itself.
 * @param from - a directory ({@link appDirectory} by default)
 * @returns the resolved file, or undefined when it is not found so (the caller then falls back to
 *   tracehook's own resolution), or when the package has no `require` export (ESM-only)
 */
export function resolveFromApp(specifier: string, from = appDirectory()): string | undefined {
  if (from === undefined) return undefined;
  const base = join(from, 'noop.js');
  let resolved: string;
  try {
    resolved = createRequire(base).resolve(specifier);
  } catch {
    return undefined;
  }
  // Node.js searches these folders before the global ones: the file must be inside the first package folder
  // found in them (through a symlink, as Node.js resolves it), else it came from NODE_PATH or a global folder.
  const pkg = packageOf(specifier);
  for (let dir = from, up = dirname(dir); ; dir = up, up = dirname(dir)) {
    const folder = join(dir, 'node_modules', pkg);
    const real = basename(dir) === 'node_modules' ? undefined : realFolder(folder);
    // `--preserve-symlinks` keeps the path through the symlink.
    if (real !== undefined) return resolved.startsWith(real + sep) || resolved.startsWith(folder + sep) ? resolved : undefined;
    if (up === dir) return undefined;
  }
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, parts[0].startsWith('@') ? 2 : 1).join('/');
}

/** The real path of a folder, or undefined when there is none. */
function realFolder(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
