import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../package-root.js';
import { importFunction, moduleUrl, parseImportPath, pickFunction } from './import-path.js';
import { ConfigError } from '../config/config-error.js';

/** Built-in hooks that can be named without a module, e.g. `TRACEHOOK_STARTUP_HOOK=console`. */
const BUILT_IN: Record<string, string> = { default: 'default', file: 'default', console: 'console', otlp: 'otlp' };

const VARIABLE = 'TRACEHOOK_STARTUP_HOOK';

/** `@tracehook/register/hooks/<name>:setupTracing`, as an absolute path that resolves from any directory. */
function builtInHook(value: string): string | undefined {
  const name = BUILT_IN[value];
  return name && `${join(packageRoot(), 'hooks', `${name}.cjs`)}:setupTracing`;
}

/**
 * Runs the tracing startup hook named by `TRACEHOOK_STARTUP_HOOK`: a function of no arguments,
 * possibly async, that sets up the TracerProvider, span processors and extra instrumentations.
 * @param synchronous - load the hook's module with `require()` when it can be (a file or package
 *   that resolves to a file; an ES module too where Node can `require()` it, unless it uses
 *   top-level await), so that a synchronous hook has run when this returns: the `--require` entry
 *   cannot wait for a promise before the app's first line. Otherwise, or when that fails, `import()`.
 * @returns undefined when the hook ran synchronously, else a promise of its end
 * @throws ConfigError when the hook cannot be found, or the hook's own error wrapped in one
 *   (as a rejected promise, or thrown when it ran synchronously).
 * @see Ray, "Tracing startup hook": the hook is "called with no args or kwargs"
 */
export function runStartupHook(value: string, synchronous = false): void | Promise<void> {
  const target = builtInHook(value) ?? value;
  const fn = synchronous ? requireFunction(target) : undefined;
  if (!fn) return importFunction(VARIABLE, target).then((f) => call(value, f));
  return call(value, fn);
}

function call(value: string, fn: (...args: unknown[]) => unknown): void | Promise<void> {
  const failed = (err: unknown) => new ConfigError(VARIABLE, value, 'a hook that runs without throwing', `it threw: ${(err as Error)?.message ?? String(err)}`);
  let result: unknown;
  try {
    result = fn();
  } catch (err) {
    throw failed(err);
  }
  if (result instanceof Promise || typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
    return Promise.resolve(result).then(
      () => undefined,
      (err: unknown) => {
        throw failed(err);
      },
    );
  }
}

/**
 * The hook's function loaded with `require()`, or undefined when its module cannot be loaded so
 * (a bare specifier only `import()` resolves, top-level await, a Node without `require(esm)`):
 * then `import()` loads it and reports any error.
 * @throws ConfigError for a bad `module:attribute` or a missing attribute
 */
function requireFunction(value: string): ((...args: unknown[]) => unknown) | undefined {
  const path = parseImportPath(VARIABLE, value);
  const url = moduleUrl(path.module, process.cwd());
  if (!url.startsWith('file:')) return undefined;
  const file = fileURLToPath(url);
  if (file.endsWith('.mjs') && !(process.features as { require_module?: boolean }).require_module) return undefined;
  let target: unknown;
  try {
    target = require(file);
  } catch (err) {
    // Only "this module needs import()": any other error is the module's own, and loading it
    // again through import() would run its side effects twice.
    if (IMPORT_ONLY.has((err as { code?: string }).code ?? '')) return undefined;
    throw new ConfigError(VARIABLE, value, 'a module that can be imported', (err as Error).message?.split('\n')[0]);
  }
  return pickFunction(VARIABLE, value, path, target);
}

/** Errors of `require()` for modules that only `import()` loads (ES modules on older Node, top-level await, other file types). */
const IMPORT_ONLY = new Set(['ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE', 'ERR_REQUIRE_CYCLE_MODULE', 'ERR_UNKNOWN_FILE_EXTENSION', 'MODULE_NOT_FOUND']);
