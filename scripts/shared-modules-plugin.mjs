// An esbuild plugin for files loaded by the preload after startup (the lazily loaded instrumentations, the OTLP/HTTP
// parts): each `require()` of one of `ids` becomes a read of the preload bundle's copy, published by
// src/instrumentations/shared-modules.ts (`publishSharedModules`) under `Symbol.for(key)` on `globalThis`, and only
// without it a `require()` of the package as before. No path is resolved for the shared copies.

/**
 * @param ids - package names required as they are (`@opentelemetry/api` …), never their subpaths
 * @param key - the `Symbol.for` key the copies are published under
 */
export function sharedModulesPlugin(ids, key) {
  const filter = new RegExp(`^(${ids.map((id) => id.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
  return {
    name: 'shared-modules',
    setup(b) {
      // The stand-in's own require() of the package stays a require().
      b.onResolve({ filter }, (args) => (args.namespace === 'shared-module' ? { path: args.path, external: true } : { path: args.path, namespace: 'shared-module' }));
      b.onLoad({ filter: /.*/, namespace: 'shared-module' }, (args) => ({
        contents: `module.exports = globalThis[Symbol.for(${JSON.stringify(key)})]?.[${JSON.stringify(args.path)}] ?? require(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}
