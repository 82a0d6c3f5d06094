// The build-time text edits of five dependencies, made by scripts/bundle.mjs as esbuild loads each file into the
// preload bundle. Each `from` must be in the file, else the build fails (an update of the package cannot silently
// undo the edit); test/unit/source-edits.test.mjs checks that each edited function still does what the edit assumes
// (an update that keeps the text but changes its meaning), and docs/upstream.md proposes each one upstream.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/**
 * @typedef {object} SourceEdit
 * @property {string} name - the esbuild plugin's name, and the edit's in docs/upstream.md
 * @property {RegExp} filter - the file(s) edited, matched against the absolute path esbuild loads
 * @property {string} file - that file in this install, relative to node_modules/ (for the test)
 * @property {string} from - text that must be in the file
 * @property {string} to - what `from` becomes (its first occurrence)
 * @property {string} prefix - text put before the whole file
 */

/** @type {SourceEdit[]} */
export const SOURCE_EDITS = [
  // @opentelemetry/resources evaluates every detector at load (its index requires them all), and the
  // service-instance one requires node:crypto at its top for a randomUUID() the preload never calls:
  // ≈ 6 ms of startup. That require is made lazy.
  {
    name: 'lazy-crypto',
    filter: /@opentelemetry[\\/]resources[\\/]build[\\/]src[\\/].*ServiceInstanceIdDetector\.js$/,
    file: '@opentelemetry/resources/build/src/detectors/platform/node/ServiceInstanceIdDetector.js',
    from: 'const crypto_1 = require("crypto");',
    to: 'const crypto_1 = { get randomUUID() { return require("crypto").randomUUID; } };',
    prefix: '',
  },
  // @opentelemetry/core's Node.js platform reads the global `performance` as it loads (its deprecated `otperformance`),
  // and that first read loads Node.js's perf_hooks implementation: ≈ 2 ms of every start, for an export the preload
  // never reads. It becomes a getter.
  {
    name: 'lazy-performance',
    filter: /@opentelemetry[\\/]core[\\/]build[\\/]src[\\/]platform[\\/]node[\\/]index\.js$/,
    file: '@opentelemetry/core/build/src/platform/node/index.js',
    from: 'exports.otperformance = performance;',
    to: 'Object.defineProperty(exports, "otperformance", { enumerable: true, get: function () { return performance; } });',
    prefix: '',
  },
  // @opentelemetry/instrumentation reads and parses a package's package.json for every file of an instrumented
  // package that loads (≈ 100 for ioredis and pg): its version, per package folder, is remembered instead. The map
  // holds one entry per folder of an instrumented package.
  {
    name: 'package-version-once',
    filter: /@opentelemetry[\\/]instrumentation[\\/]build[\\/]src[\\/]platform[\\/]node[\\/]instrumentation\.js$/,
    file: '@opentelemetry/instrumentation/build/src/platform/node/instrumentation.js',
    from: '    _extractPackageVersion(baseDir) {\n',
    to: [
      '    _extractPackageVersion(baseDir) {',
      '        if (packageVersions.has(baseDir)) return packageVersions.get(baseDir);',
      '        const version = this._readPackageVersion(baseDir);',
      '        packageVersions.set(baseDir, version);',
      '        return version;',
      '    }',
      '    _readPackageVersion(baseDir) {',
      '',
    ].join('\n'),
    prefix: 'const packageVersions = new Map();\n',
  },
  // require-in-the-middle finds out whether a file of a watched package is the package's main file by resolving the
  // package from its folder, once per file that loads (≈ 70 for ioredis and pg, ≈ 5 ms): the answer, per package
  // folder, is remembered instead (what the package's main file is does not change while the process runs).
  {
    name: 'main-resolved-once',
    filter: /require-in-the-middle[\\/]index\.js$/,
    file: 'require-in-the-middle/index.js',
    from: 'res = require.resolve(moduleName, { paths: [basedir] })',
    to: 'res = resolveMainOnce(moduleName, basedir)',
    prefix: [
      'const mainFiles = new Map();',
      'function resolveMainOnce(moduleName, basedir) {',
      "  const key = basedir + '\\0' + moduleName;",
      '  let main = mainFiles.get(key);',
      '  if (main === undefined) mainFiles.set(key, (main = require.resolve(moduleName, { paths: [basedir] })));',
      '  return main;',
      '}',
      '',
    ].join('\n'),
  },
  // @opentelemetry/instrumentation checks an instrumented package's version against the instrumentation's supported
  // ranges with regular expressions that V8 compiles at their first use, in every process and thread (≈ 2 ms, paid by
  // the first package an instrumentation patches). The ranges instrumentations declare (`>=8.0.3 <9`, `^5.0.0`) are
  // decided without them (src/instrumentations/version-range.ts); any other goes on to the full check.
  {
    name: 'simple-ranges',
    filter: /@opentelemetry[\\/]instrumentation[\\/]build[\\/]src[\\/]semver\.js$/,
    file: '@opentelemetry/instrumentation/build/src/semver.js',
    from: 'function satisfies(version, range, options) {\n',
    to: ['function satisfies(version, range, options) {', '    const simple = satisfiesSimpleRange(version, range);', '    if (simple !== undefined) return simple;', ''].join('\n'),
    prefix: `const { satisfiesSimpleRange } = require(${JSON.stringify(join(root, 'dist/instrumentations/version-range.js'))});\n`,
  },
];

/**
 * `text` with `edit` made.
 * @throws when `edit.from` is not in `text` (naming `path`)
 */
export function applySourceEdit(edit, text, path) {
  if (!text.includes(edit.from)) throw new Error(`${path}: no \`${edit.from.trim()}\` to edit (${edit.name}); update scripts/source-edits.mjs`);
  return edit.prefix + text.replace(edit.from, edit.to);
}

/** An esbuild plugin that makes `edit` in the files its filter matches, as they load. */
export function sourceEditPlugin(edit) {
  return {
    name: edit.name,
    setup(b) {
      b.onLoad({ filter: edit.filter }, (args) => ({ contents: applySourceEdit(edit, readFileSync(args.path, 'utf8'), args.path), loader: 'js' }));
    },
  };
}
