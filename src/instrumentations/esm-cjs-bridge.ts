import { sep } from 'node:path';
import { logDebug } from '../diag/logger.js';
import { onModuleLoad, requireAgain } from '../patch/module-hooks.js';
import { stateKey } from '../state-key.js';

const NODE_MODULES = `${sep}node_modules${sep}`;
const BRIDGE_KEY = stateKey('esmCjsBridge');

/**
 * Lets require-in-the-middle instrument a CommonJS package that an ES module imports.
 *
 * On Node 20 an `import` of a CJS package loads it through the loader's own reference to
 * `Module._load`, so the patched `Module.prototype.require` that require-in-the-middle relies on
 * never runs and the package stays uninstrumented (both its named and its default import). Every
 * CJS module still passes through `Module.prototype.load`, though, before the ESM side reads its
 * exports: for a package module loaded with no parent (that is, from ESM, not through a `require()`), this requires it once
 * more by file name, now through require-in-the-middle, which patches `module.exports` in place or
 * returns the object to use instead. The module is already cached, so this costs a cache lookup.
 *
 * This replaces import-in-the-middle's loader thread for instrumented CommonJS packages (the
 * thread alone costs more than the whole preload otherwise does: bench/RESULTS.md, startup notes) and also patches the default import, which
 * import-in-the-middle leaves unpatched.
 */
export function installEsmCjsBridge(): void {
  const g = globalThis as typeof globalThis & { [BRIDGE_KEY]?: boolean };
  if (g[BRIDGE_KEY]) return;
  g[BRIDGE_KEY] = true;
  // tracehook's one Module#load wrapper, which also tells a require()'s loads (`required`) from the others; reading
  // `module.parent` instead would print DEP0144 under `--pending-deprecation`.
  onModuleLoad((module, filename, required) => {
    if (required || typeof filename !== 'string' || !filename.includes(NODE_MODULES)) return undefined;
    return () => {
      const failed = requireAgain(module, filename);
      // The package loaded; only its instrumentation failed, and that must not fail the import.
      if (failed !== undefined) logDebug('instrumentations', `${filename}: instrumenting it for an ES module's import failed (${failed})`);
    };
  });
}
