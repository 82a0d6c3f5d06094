'use strict';
// Stands in for the `debug` package inside the preload bundle (require-in-the-middle is its only user there).
// The real package loads tty, os, util and supports-color at startup (≈ 8 ms of the preload's load) to serve
// logging that is off unless DEBUG is set; it is required, from node_modules, only when DEBUG is set, so
// `DEBUG=require-in-the-middle` still prints what it printed.
module.exports = function createDebug(namespace) {
  if (process.env.DEBUG) return require('debug')(namespace);
  const off = () => {};
  off.enabled = false;
  return off;
};
