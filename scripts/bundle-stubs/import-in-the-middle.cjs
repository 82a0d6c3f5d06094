'use strict';
// Stands in for import-in-the-middle inside the preload bundle (@opentelemetry/instrumentation creates one
// `Hook` per instrumented module). A Hook acts only on ES modules that import-in-the-middle's loader hook
// wrapped; with no such loader in the process it does nothing, and loading the package costs ≈ 8 ms of
// startup (three files and node:worker_threads). So the real package, the copy register.mjs imports
// (left external, from node_modules), is loaded only when a loader may be there: it is already loaded in
// this thread (register.mjs loads it to register the loader, TRACEHOOK_ESM_LOADER), or Node.js flags name
// a loader. Otherwise a Hook is an object whose unhook() does nothing, as the real one's would.
// The answer is taken once, at the first Hook (during the preload's start, after register.mjs's registration).
let real;
let mayRun;

function loaderMayRun() {
  if (mayRun === undefined) {
    const flags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS || ''}`;
    // Its own files, found without resolving (a package.json read): `.../import-in-the-middle/index.js`.
    mayRun = Boolean(real) || Object.keys(require.cache).some((file) => /[\\/]import-in-the-middle[\\/]index\.js$/.test(file)) || /loader|import-in-the-middle|hook\.mjs/.test(flags);
  }
  return mayRun;
}

function load() {
  return (real = real || require('import-in-the-middle'));
}

function Hook(modules, options, hookFn) {
  if (!(this instanceof Hook)) return new Hook(modules, options, hookFn);
  if (loaderMayRun()) return new (load().Hook)(modules, options, hookFn);
}
Hook.prototype.unhook = function unhook() {};

module.exports = Hook;
module.exports.Hook = Hook;
module.exports.addHook = (...args) => load().addHook(...args);
module.exports.removeHook = (...args) => load().removeHook(...args);
module.exports.createAddHookMessageChannel = (...args) => load().createAddHookMessageChannel(...args);
