import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { importFunction, requireFunction } from './import-path.js';
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
  const fn = synchronous ? requireFunction(VARIABLE, target) : undefined;
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
