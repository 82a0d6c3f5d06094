import type { TracehookConfig } from './environment.js';
import { readConfig } from './environment.js';
import { stateKey } from '../state-key.js';

// Under Symbol.for on globalThis, not in a module variable: one process loads this file in up to
// three copies (the bundle, dist/api.js, dist/workers/ipc-entry.js), and all of a thread's copies must
// see the one configuration read (docs/architecture.md, "Invariants").
const CONFIG_KEY = stateKey('config');

type GlobalWithConfig = typeof globalThis & { [CONFIG_KEY]?: TracehookConfig };

/**
 * This thread's configuration, read from `process.env` on the first call (by the preload, before
 * the app's first line; by the public API when there is no preload) and the same object after that.
 * Each worker thread reads its own (a worker may be given its own `env`). Variables the app sets
 * after that first read are not seen.
 */
export function getConfig(): TracehookConfig {
  const g = globalThis as GlobalWithConfig;
  return (g[CONFIG_KEY] ??= readConfig(process.env));
}
