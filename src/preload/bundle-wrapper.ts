/**
 * What the preload bundle's text starts and ends with (scripts/bundle.mjs writes it so): the CommonJS module wrapper,
 * as `Module.wrap()` gives it. src/preload/load-bundle.ts compiles such a file as it is read, where wrapping it at load
 * made a second, flattened copy of its ≈ 0.5 MiB on the V8 heap at every start, in every process and worker thread.
 */
export const PRELOAD_WRAPPER: readonly [string, string] = ['(function (exports, require, module, __filename, __dirname) { ', '\n})'];
