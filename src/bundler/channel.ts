/**
 * The `node:diagnostics_channel` channel on which a module wrapped by a tracehook bundler plugin publishes its exports
 * once its own code has run (src/bundler/wrap-code.ts), and to which the preload subscribes
 * (src/bundler/bundled-modules.ts). Unversioned: a bundle built with one tracehook version is run under another.
 * Its text in a bundle is also the sign that the bundle was built with a plugin (src/bundler/missing-plugin.ts).
 */
export const MODULE_LOAD_CHANNEL = 'tracehook:bundler:module-load';

/** What a bundled module tells about itself, fixed at build time. */
export interface BundledModuleInfo {
  /** The package name: `pg`, `@grpc/grpc-js`. */
  name: string;
  /** The package's version from its package.json at build time (`8.23.1`); undefined when it had none. */
  version: string | undefined;
  /** The file, relative to the package folder, `/`-separated: `lib/client.js`. */
  path: string;
  /** Whether the file is what the package's name resolves to (`require('pg')`, `import 'pg'`), as its package.json says. */
  main: boolean;
  /** Whether the file is an ES module (its exports are handed over as a namespace view, see wrap-code.ts). */
  esm: boolean;
}

/**
 * The message published on {@link MODULE_LOAD_CHANNEL}: the module's facts and its exports. A subscriber may set
 * `module` to other exports (patched or replaced), which a CommonJS module then exports instead; an ES module keeps
 * its bindings (a patch must change the objects, as it must under import-in-the-middle).
 */
export interface ModuleLoadMessage {
  name: string;
  version: string | undefined;
  path: string;
  main: boolean;
  /** The module's exports: `module.exports` of a CommonJS module; of an ES module, a view of its namespace tagged `Module`. */
  module: unknown;
}
