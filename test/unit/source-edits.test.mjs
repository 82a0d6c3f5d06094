// The build-time edits of five dependencies (scripts/source-edits.mjs) keep their meaning: each edited file, as the
// preload bundle gets it, is loaded from this install's package and checked to do what the original does where the
// edit assumes it (the build only fails when an edit's text is gone, not when the text stays and its meaning moves).
// Upstream proposals: docs/upstream.md.
// Usage: npm run build && node --test test/unit/source-edits.test.mjs
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { test } from 'node:test';
import { applySourceEdit, SOURCE_EDITS } from '../../scripts/source-edits.mjs';

const root = new URL('../../', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const fileOf = (name) => join(root, 'node_modules', SOURCE_EDITS.find((e) => e.name === name).file);

/** The file the edit `name` targets, edited as the bundle gets it, loaded as a separate module beside the original. */
function loadEdited(name) {
  const edit = SOURCE_EDITS.find((e) => e.name === name);
  const file = fileOf(name);
  const m = new Module(file, null);
  m.filename = file;
  m.paths = Module._nodeModulePaths(dirname(file));
  m._compile(applySourceEdit(edit, readFileSync(file, 'utf8'), file), file);
  return m.exports;
}

test('every edit names the file it edits, and its text is there', () => {
  assert.equal(SOURCE_EDITS.length, 5);
  for (const edit of SOURCE_EDITS) {
    const file = fileOf(edit.name);
    assert.match(file, edit.filter, edit.name);
    assert.ok(readFileSync(file, 'utf8').includes(edit.from), edit.name);
  }
  assert.throws(() => applySourceEdit(SOURCE_EDITS[0], 'other text', 'x.js'), /x\.js: no `.*` to edit \(lazy-crypto\)/);
});

test('lazy-crypto: the detector uses node:crypto only for randomUUID(), and still makes a UUID', () => {
  const original = readFileSync(fileOf('lazy-crypto'), 'utf8');
  // The getter gives randomUUID only: any other use of crypto_1 would read undefined.
  assert.equal(original.match(/crypto_1\b/g).length, original.match(/crypto_1\.randomUUID\b/g).length + 1);
  const id = loadEdited('lazy-crypto').serviceInstanceIdDetector.detect().attributes['service.instance.id'];
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('lazy-performance: otperformance is still the global performance, an enumerable export', () => {
  const original = readFileSync(fileOf('lazy-performance'), 'utf8');
  // The getter reads the global later: the file must not mean a local `performance` (or perf_hooks') instead.
  assert.doesNotMatch(original, /\b(?:const|let|var|function)\s+performance\b|perf_hooks/);
  const edited = loadEdited('lazy-performance');
  assert.equal(edited.otperformance, globalThis.performance);
  assert.ok(Object.keys(edited).includes('otperformance'));
  assert.equal(typeof edited.otperformance.now(), 'number');
});

test("package-version-once: a package folder's version is its package.json's, whatever else is asked, so it can be kept", () => {
  const original = readFileSync(fileOf('package-version-once'), 'utf8');
  // Asked with the package folder only: the answer can be kept by folder.
  assert.deepEqual(original.match(/this\._extractPackageVersion\([^)]*\)/g), ['this._extractPackageVersion(baseDir)']);
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-edit-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', version: '1.2.3' }));
  const none = join(dir, 'none');
  const editedBase = loadEdited('package-version-once').InstrumentationBase.prototype;
  const originalBase = require(fileOf('package-version-once')).InstrumentationBase.prototype;
  for (const folder of [dir, none, join(root, 'node_modules/pg')]) {
    const expected = originalBase._extractPackageVersion.call(Object.create(originalBase), folder);
    assert.equal(editedBase._extractPackageVersion.call(Object.create(editedBase), folder), expected, folder);
  }
  assert.equal(editedBase._extractPackageVersion.call(Object.create(editedBase), dir), '1.2.3');
});

test('main-resolved-once: which files of a watched package are its main file is the same with the answer kept', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-edit-'));
  const pkg = join(dir, 'node_modules/tracehook-edit-pkg');
  mkdirSync(join(pkg, 'lib'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'tracehook-edit-pkg', main: 'main.js' }));
  writeFileSync(join(pkg, 'main.js'), "module.exports = require('./lib/inner.js');\n");
  writeFileSync(join(pkg, 'lib/inner.js'), 'module.exports = 1;\n');
  // Loaded by a relative path from inside the package, so require-in-the-middle must resolve the package's main file
  // to know it is one (a require by the package's name is matched without that).
  writeFileSync(join(pkg, 'lib/entry.js'), "module.exports = require('../main.js');\n");
  const requireFromDir = createRequire(join(dir, 'app.js'));
  const seen = (ritm) => {
    const names = [];
    const hook = new ritm.Hook(['tracehook-edit-pkg'], { internals: true }, (exports, name) => (names.push(name), exports));
    try {
      requireFromDir('tracehook-edit-pkg/lib/entry.js');
    } finally {
      hook.unhook();
      for (const key of Object.keys(require.cache)) if (key.startsWith(pkg)) delete require.cache[key];
    }
    return names;
  };
  const expected = seen(require(fileOf('main-resolved-once')));
  assert.deepEqual(expected, [`tracehook-edit-pkg${sep}lib${sep}inner.js`, 'tracehook-edit-pkg', `tracehook-edit-pkg${sep}lib${sep}entry.js`]);
  const edited = loadEdited('main-resolved-once');
  assert.deepEqual(seen(edited), expected);
  assert.deepEqual(seen(edited), expected, 'a second time, from the kept answers');
});

test('simple-ranges: the edited satisfies() answers as the original for the ranges instrumentations declare', () => {
  const original = require(fileOf('simple-ranges')).satisfies;
  const edited = loadEdited('simple-ranges').satisfies;
  const ranges = ['*', '^1.0.0', '^5.0.0', '>=0.3.0 <3', '>=1.0.0', '>=1.0.0 <2', '>=1.3 <4', '>=3.1.0 <3.35.0', '>=4 <5', '>=8.0.3 <9', '>= 6.7 < 8', '<4', '~1.2.3', '1.x', '>=1 <2 || >=3', ''];
  const versions = [
    '0.0.0',
    '0.3.0',
    '1.0.0',
    '1.2.3',
    '1.3.0',
    '2.9.9',
    '3.0.0',
    '3.34.9',
    '3.35.0',
    '4.0.0',
    '6.7.0',
    '8.0.2',
    '8.0.3',
    '8.9.9',
    '9.0.0',
    '1.2.3-beta.1',
    '9.0.0-0',
    'v1.2.3',
    '1.2',
  ];
  for (const range of ranges) {
    for (const version of versions) {
      for (const options of [undefined, { includePrerelease: true }]) {
        assert.equal(edited(version, range, options), original(version, range, options), `${version} in ${range} ${JSON.stringify(options)}`);
      }
    }
  }
});
