import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { importFunction } from './import-path.js';
import { ConfigError } from '../config/config-error.js';

/** Built-in hooks that can be named without a module, e.g. `TRACEHOOK_STARTUP_HOOK=console`. */
const BUILT_IN: Record<string, string> = { default: 'default', file: 'default', console: 'console', otlp: 'otlp' };

/** `@tracehook/register/hooks/<name>:setupTracing`, as an absolute path that resolves from any directory. */
function builtInHook(value: string): string | undefined {
  const name = BUILT_IN[value];
  return name && `${join(packageRoot(), 'hooks', `${name}.cjs`)}:setupTracing`;
}

/**
 * Runs the tracing startup hook named by `TRACEHOOK_STARTUP_HOOK`: a function of no arguments,
 * possibly async, that sets up the TracerProvider, span processors and extra instrumentations.
 * @throws ConfigError when the hook cannot be found, or the hook's own error wrapped in one.
 * @see ../shared/reference/002, 003 (Ray: "called with no args or kwargs")
 */
export async function runStartupHook(value: string): Promise<void> {
  const fn = await importFunction('TRACEHOOK_STARTUP_HOOK', builtInHook(value) ?? value);
  try {
    await fn();
  } catch (err) {
    throw new ConfigError('TRACEHOOK_STARTUP_HOOK', value, 'a hook that runs without throwing', `it threw: ${(err as Error)?.message ?? String(err)}`);
  }
}
