import { sep } from 'node:path';
import { logDebug } from '../diag/logger.js';
import { wrap } from '../patch/wrap.js';
import { stateKey } from '../state-key.js';

const NODE_MODULES = `${sep}node_modules${sep}`;
const BRIDGE_KEY = stateKey('esmCjsBridge');

interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
}

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
 * thread alone costs ≈ 60 ms of startup here) and also patches the default import, which
 * import-in-the-middle leaves unpatched.
 */
export function installEsmCjsBridge(): void {
  const g = globalThis as typeof globalThis & { [BRIDGE_KEY]?: boolean };
  if (g[BRIDGE_KEY]) return;
  g[BRIDGE_KEY] = true;
  const Module = require('node:module') as { prototype: { load(this: CjsModule, filename: string): unknown; require(this: CjsModule, id: string): unknown } };
  // A module loaded through `require()` (it has a parent) is the first one loaded while a
  // `require()` call runs. Tracked here, because reading `module.parent` prints DEP0144 under
  // `--pending-deprecation`.
  let requiring = false;
  const otherwise = 'CommonJS packages imported from ES modules stay uninstrumented';
  wrap(Module.prototype, 'require', { component: 'instrumentations', id: 'esm-cjs-bridge.Module#require', otherwise }, (requireModule) => function (this: CjsModule, id: string) {
    requiring = true;
    try {
      return requireModule.call(this, id);
    } finally {
      requiring = false;
    }
  });
  wrap(Module.prototype, 'load', { component: 'instrumentations', id: 'esm-cjs-bridge.Module#load', otherwise }, (load) => function (this: CjsModule, filename: string) {
    const required = requiring;
    requiring = false;
    const result = load.call(this, filename);
    if (!required && typeof filename === 'string' && filename.includes(NODE_MODULES)) {
      try {
        const exports = this.require(filename);
        if (exports !== this.exports) this.exports = exports;
      } catch (err) {
        // The package loaded; only its instrumentation failed, and that must not fail the import.
        logDebug('instrumentations', `${filename}: instrumenting it for an ES module's import failed (${(err as Error)?.message?.split('\n')[0]})`);
      }
    }
    return result;
  });
}
