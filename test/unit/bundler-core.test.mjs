// Unit tests of the bundler plugins' shared core (src/bundler/): the wrapper of a CommonJS module leaves its exports
// untouched without a subscriber and hands them over with one; the module list and its path filter; the build-time
// facts of a bundled file (package, version, main file).
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { join } from 'node:path';
import { test } from 'node:test';
import { runInThisContext } from 'node:vm';
import { MODULE_LOAD_CHANNEL } from '../../dist/bundler/channel.js';
import { ModuleSelection, instrumentedPackages } from '../../dist/bundler/module-list.js';
import { PackageInfo } from '../../dist/bundler/package-info.js';
import { hasDefaultExport, looksLikeEsModule, wrapCommonJs } from '../../dist/bundler/wrap-code.js';
import { ROOT } from '../helpers/fixture.mjs';

const INFO = { name: 'lib', version: '1.2.3', path: 'lib/index.js', main: true };

/** Runs `source` as a CommonJS module body (as a bundler's module wrapper would). @returns its `module.exports` */
function runModule(source, module = { exports: {} }) {
  runInThisContext(`(function (exports, require, module) {${source}\n})`)(module.exports, require, module);
  return module.exports;
}
const require = (await import('node:module')).createRequire(import.meta.url);

test('a wrapped CommonJS module without a subscriber keeps its own exports (same object), top-level return and all', () => {
  const module = { exports: {} };
  const own = module.exports;
  const exports = runModule(wrapCommonJs('#!/usr/bin/env node\nexports.a = 1;\nif (exports.a) return;\nexports.b = 2;', INFO), module);
  assert.equal(exports, own);
  assert.deepEqual(exports, { a: 1 });
  const replaced = runModule(wrapCommonJs('module.exports = function f() {};', INFO));
  assert.equal(replaced.name, 'f');
});

test('with a subscriber, the message carries the facts and the exports, and the module exports what it set', () => {
  const seen = [];
  const onMessage = (message) => {
    seen.push({ ...message, module: { ...message.module } });
    message.module = { patched: true };
  };
  subscribe(MODULE_LOAD_CHANNEL, onMessage);
  try {
    assert.deepEqual(runModule(wrapCommonJs('exports.a = 1;', INFO)), { patched: true });
  } finally {
    unsubscribe(MODULE_LOAD_CHANNEL, onMessage);
  }
  assert.deepEqual(seen, [{ ...INFO, module: { a: 1 } }]);
});

test('the module list comes from the instrumentation catalogue: pg and its client file, the route hook, no built-ins', () => {
  const packages = instrumentedPackages();
  assert.deepEqual(
    packages.filter((p) => p.name === 'pg').map((p) => [p.instrumentation, p.files]),
    [['pg', ['lib/client.js', 'lib/native/client.js']]],
  );
  assert.ok(packages.some((p) => p.name === 'router' && p.instrumentation === 'http' && p.files.includes('lib/layer.js')));
  assert.ok(!packages.some((p) => ['http', 'fs', 'net', 'dns'].includes(p.name)));
  const selection = new ModuleSelection();
  assert.ok(selection.wants('pg', 'lib/client.js', false));
  assert.ok(selection.wants('pg', 'lib/index.js', true));
  assert.ok(!selection.wants('pg', 'lib/query.js', false));
  const filter = selection.pathFilter();
  assert.ok(filter.test('/app/node_modules/@grpc/grpc-js/build/src/index.js'));
  assert.ok(filter.test('/app/node_modules/socket.io/dist/index.js'));
  assert.ok(!filter.test('/app/node_modules/socketxio/dist/index.js'));
  assert.ok(!filter.test('/app/node_modules/pgx/index.js'));
});

test("a bundled file's facts: its package, the package's version and whether it is what the name resolves to", () => {
  const info = new PackageInfo();
  const pg = (file) => info.of(join(ROOT, 'node_modules', 'pg', ...file.split('/')));
  const version = require(join(ROOT, 'node_modules/pg/package.json')).version;
  assert.deepEqual(pg('lib/index.js'), { name: 'pg', root: join(ROOT, 'node_modules', 'pg'), version, path: 'lib/index.js', main: true, esm: false });
  assert.equal(pg('esm/index.mjs').main, true);
  assert.equal(pg('esm/index.mjs').esm, true);
  assert.equal(pg('lib/client.js').main, false);
  assert.equal(info.of(join(ROOT, 'node_modules', '@grpc', 'grpc-js', 'build', 'src', 'index.js')).name, '@grpc/grpc-js');
  assert.equal(info.of(join(ROOT, 'src', 'api.ts')), undefined);
});

test('ES-module text: default exports and ES syntax told from text', () => {
  assert.ok(hasDefaultExport('export default 1'));
  assert.ok(hasDefaultExport('export { Router, x as default };'));
  assert.ok(!hasDefaultExport('export { Router };\nexport * from "./x.js";'));
  assert.ok(looksLikeEsModule("import x from 'y';\nexport const a = 1;"));
  assert.ok(!looksLikeEsModule("const x = require('y');\nmodule.exports = { exported: 1 };"));
});
