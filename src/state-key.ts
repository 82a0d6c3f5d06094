/**
 * This package's version, as built: scripts/post-build.mjs writes package.json's `version` over the placeholder in
 * dist/state-key.js before the bundles are made from dist/, so every copy of one build has the same value (the
 * placeholder stays only in a tsc-only build, where it is just as consistent).
 */
export const PACKAGE_VERSION: string = '0.0.0-unbuilt';

/**
 * The `globalThis` key of per-thread state named `name` (`state`, `stats`, `logger` …): `Symbol.for('tracehook@<version>:<name>')`.
 * Every copy of one tracehook build in a thread (the preload bundle, `dist/api.js` and its files, the IPC entry)
 * gets the same symbol, so they share the state; two tracehook versions in one process get different symbols, so
 * they never share objects whose shape may differ between versions. Keys that other tools or other versions must
 * see stay unversioned (docs/architecture.md, "Versioned keys").
 */
export function stateKey(name: string): symbol {
  return Symbol.for(`tracehook@${PACKAGE_VERSION}:${name}`);
}
