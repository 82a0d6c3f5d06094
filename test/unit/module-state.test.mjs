// Shared state made safe (docs/architecture.md, "Versioned keys" and "One process holds up to three copies"):
// - a file compiled into more than one copy of the code keeps no module-level state (a `let`, a Map, a Set …) but
//   the ones listed below as deliberately per copy, each with its reason; a new one fails here (put it on
//   globalThis under stateKey() instead, or list it with its reason);
// - every tracehook Symbol.for key is versioned (stateKey(), `tracehook@<version>:<name>`) but the few that other
//   tools or other versions must see;
// - two tracehook versions in one thread never share state objects, and only one of them starts.
// Usage: npm run build && node --test test/unit/module-state.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, resolve } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;
const dist = join(root, 'dist');
const require = createRequire(import.meta.url);
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * Module-level state that is per copy on purpose, `<src file>:<name>`: why a second, separate value in another
 * copy is harmless.
 */
const PER_COPY = {
  'src/encoding/otlp-json.ts:pool': 'spare buffers of stepwise encodings: a copy reuses only its own',
  'src/encoding/otlp-protobuf.ts:pool': 'spare buffers of stepwise encodings: a copy reuses only its own',
  'src/encoding/otlp-json.ts:keyPrefixes': 'a bounded cache of encoded key prefixes: the same value in every copy',
  'src/encoding/otlp-json.ts:resourceHeads': "a cache of a resource's encoded opening, weakly held: the same bytes in every copy",
  'src/encoding/otlp-json.ts:scopeHeads': "a cache of a scope's encoded opening, weakly held: the same bytes in every copy",
  'src/exporters/direct-otlp-http-exporter.ts:parts': 'a loaded module (the OTLP/HTTP parts bundle), the same in every copy',
  'src/exporters/file-span-exporter.ts:FALLBACK_CODES': 'a constant set of error codes, never changed',
  'src/exporters/json-trace-serializer.ts:toJson': 'the chosen encoder, from the configuration every copy reads alike',
  'src/exporters/json-trace-serializer.ts:stock': 'a loaded module (the stock serializer), the same in every copy',
  'src/instrumentations/shared-modules.ts:shared': 'a once-flag for require.cache entries, which are per process: a second copy finds them there',
  'src/package-root.ts:root': 'a cache of where the package is, the same in every copy of one build',
  'src/patch/builtin-loaded.ts:pending': 'whenBuiltinLoaded is called by src/workers/install.ts, src/preload/start.ts and the fast HTTP server instrumentation, in the preload bundle only',
  'src/patch/builtin-loaded.ts:loading': 'as pending: the preload bundle only',
  'src/patch/builtin-loaded.ts:watching': 'as pending: the preload bundle only',
  'src/processors/open-span-processor.ts:cached': 'a cache of the object on globalThis (stateKey), the same object in every copy',
  'src/provider/monotonic-clock.ts:anchor': 'a cache of the epoch anchor on globalThis (stateKey), the same object in every copy',
  'src/provider/random-bytes.ts:deviceReadable': 'whether /dev/urandom can be read, the same answer in every copy',
  'src/startup-hook/import-path.ts:IMPORT_ONLY': 'a constant set of error codes, never changed',
  'src/workers/protocol.ts:messageCount': 'nextMessageId is called by src/workers/messaging-spans.ts, in the preload bundle only',
};

/**
 * tracehook's Symbol.for keys that stay unversioned, `<src file>:<key>`: other tools or other versions must see them.
 */
const UNVERSIONED = {
  'src/patch/wrap.ts:tracehook.patched': 'the patch marker other agents read, and what keeps two versions from wrapping a site twice',
  'src/state.ts:tracehook.running': 'which version started in this thread: every version must see it, so only one starts (a string, never an object)',
};

/** The dist/ files (relative) that `from` loads through relative `require()`s, transitively. */
function requireGraph(from) {
  const seen = new Set();
  const stack = [...from];
  while (stack.length > 0) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(join(dist, file), 'utf8').matchAll(/require\("(\.{1,2}\/[^"]+\.js)"\)/g)) {
      const target = normalize(join(dirname(file), m[1]));
      if (existsSync(join(dist, target))) stack.push(target);
    }
  }
  return seen;
}

/**
 * The src/ files compiled into more than one copy: in the preload bundle (its source map's sources) and also loaded
 * unbundled from dist/ (by the API, `hooks/*.cjs`, the IPC entry, the entries' bundle loader, or the bundle's
 * version-range edit; all of these share one module instance per file).
 */
function filesInMoreThanOneCopy() {
  const map = JSON.parse(readFileSync(join(dist, 'preload.bundle.js.map'), 'utf8'));
  const bundled = new Set(map.sources.filter((s) => !s.startsWith('..') && !s.includes('node_modules') && s.endsWith('.js')).map(normalize));
  const unbundled = requireGraph(['api.js', 'workers/ipc-entry.js', 'preload/load-bundle.js', 'instrumentations/version-range.js']);
  return [...unbundled]
    .filter((f) => bundled.has(f))
    .map((f) => `src/${f.replace(/\.js$/, '.ts')}`)
    .sort();
}

/** A top-level `let`/`var`, or a top-level `const` holding a new Map, Set, WeakMap, WeakSet, array or object. */
const MODULE_STATE = /^(?:export\s+)?(?:(?:let|var)\s+(\w+)|const\s+(\w+)\s*(?::[^=]+)?=\s*(?:new\s+(?:Map|Set|WeakMap|WeakSet|WeakRef|Array)\b|\[\s*\]|\{\s*\}))/;

function moduleState(file) {
  const found = [];
  for (const line of readFileSync(resolve(root, file), 'utf8').split('\n')) {
    const m = MODULE_STATE.exec(line);
    if (m) found.push(`${file}:${m[1] ?? m[2]}`);
  }
  return found;
}

test('the files in more than one copy are found (the preload bundle and the unbundled dist/ files share some)', () => {
  const files = filesInMoreThanOneCopy();
  for (const file of ['src/state.ts', 'src/diag/logger.ts', 'src/patch/wrap.ts', 'src/config/current.ts']) assert.ok(files.includes(file), file);
  assert.ok(!files.includes('src/preload/start.ts'), 'start.ts is in the bundle only');
});

test('a file in more than one copy keeps no module-level state but the deliberate, listed ones', () => {
  const found = filesInMoreThanOneCopy().flatMap(moduleState);
  const unlisted = found.filter((f) => !(f in PER_COPY));
  assert.deepEqual(
    unlisted,
    [],
    'module-level state in a file that more than one copy loads: put it on globalThis under stateKey() (src/state-key.ts), or list it in PER_COPY with why a separate value per copy is harmless',
  );
  const stale = Object.keys(PER_COPY).filter((f) => !found.includes(f));
  assert.deepEqual(stale, [], 'PER_COPY entries that are gone: delete them');
  assert.equal(found.length, 19);
});

test('the scan finds module-level state as written in src/', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-state-'));
  writeFileSync(
    join(dir, 'x.ts'),
    ['let a = 1;', 'export let b: number;', 'const c = new Map<string, number>();', 'const d: string[] = [];', 'const e = new Set();', '  let inner = 1;', 'const f = 1;', 'function g() {}'].join(
      '\n',
    ),
  );
  const names = moduleState(join(dir, 'x.ts')).map((f) => f.split(':').pop());
  assert.deepEqual(names, ['a', 'b', 'c', 'd', 'e']);
});

test('every tracehook Symbol.for key is versioned through stateKey(), but the listed ones', () => {
  const keys = [];
  const walk = (dir) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (path.endsWith('.ts')) for (const m of readFileSync(join(root, path), 'utf8').matchAll(/Symbol\.for\('(tracehook\.[^']+)'\)/g)) keys.push(`${path}:${m[1]}`);
    }
  };
  walk('src');
  const allowed = UNVERSIONED;
  assert.deepEqual(
    keys.filter((k) => !(k in allowed)),
    [],
    'use stateKey(name) (src/state-key.ts) for a new key',
  );
  assert.deepEqual(
    Object.keys(allowed).filter((k) => !keys.includes(k)),
    [],
    'listed keys that are gone or versioned now: delete their entries',
  );
});

test("the versioned keys carry package.json's version, in every copy of the build", () => {
  const { PACKAGE_VERSION, stateKey } = require(join(dist, 'state-key.js'));
  assert.equal(PACKAGE_VERSION, version);
  assert.equal(stateKey('state'), Symbol.for(`tracehook@${version}:state`));
  for (const bundle of ['preload.bundle.js', 'otlp-http.bundle.js', 'instrumentations/bundled/pg.js']) {
    const text = readFileSync(join(dist, bundle), 'utf8');
    assert.ok(text.includes(`"${version}"`) || text.includes(`tracehook@${version}:`), bundle);
  }
});

/** A copy of dist/state.js and dist/state-key.js built as version `v`, loaded as separate modules. */
function stateOfVersion(v) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-version-'));
  cpSync(join(dist, 'state.js'), join(dir, 'state.js'));
  writeFileSync(join(dir, 'state-key.js'), readFileSync(join(dist, 'state-key.js'), 'utf8').replace(JSON.stringify(version), JSON.stringify(v)));
  return require(join(dir, 'state.js'));
}

test('two tracehook versions in one thread never share state objects, and only the first claims the thread', () => {
  // Run in a fresh process: claiming the thread is for good.
  const code = `
    const { cpSync, mkdtempSync, readFileSync, writeFileSync } = require('node:fs');
    const { join } = require('node:path');
    const { tmpdir } = require('node:os');
    const dist = ${JSON.stringify(dist)}, version = ${JSON.stringify(version)};
    const stateOfVersion = ${stateOfVersion.toString()};
    const mine = require(join(dist, 'state.js'));
    const again = require(join(dist, 'state.js'));
    const other = stateOfVersion('9.9.9');
    const sameBuild = stateOfVersion(version);
    const result = {
      sharedWithSameBuild: mine.getPreloadState() === sameBuild.getPreloadState(),
      sharedWithOtherVersion: mine.getPreloadState() === other.getPreloadState(),
      otherClaims: other.claimThread(),
      mineClaims: mine.claimThread(),
      running: mine.runningVersion(),
    };
    console.log(JSON.stringify(result));`;
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { sharedWithSameBuild: true, sharedWithOtherVersion: false, otherClaims: true, mineClaims: false, running: '9.9.9' });
});

test("another tracehook version's preload started in the thread: this one stays a no-op", () => {
  const probe = `process.stdout.write(JSON.stringify([globalThis[Symbol.for('tracehook@${version}:state')]?.started === true, globalThis[Symbol.for('tracehook.running')]]))`;
  const env = { ...process.env, OTEL_TRACES_EXPORTER: 'none', NODE_OPTIONS: '' };
  const run = (pre) => spawnSync(process.execPath, [...pre, '--import', new URL('../../register.mjs', import.meta.url).href, '-e', probe], { env, encoding: 'utf8' });
  const alone = run([]);
  assert.equal(alone.status, 0, alone.stderr);
  assert.deepEqual(JSON.parse(alone.stdout), [true, version]);
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-version-'));
  writeFileSync(join(dir, 'other.cjs'), "globalThis[Symbol.for('tracehook.running')] = '9.9.9';\n");
  const after = run(['--require', join(dir, 'other.cjs')]);
  assert.equal(after.status, 0, after.stderr);
  assert.deepEqual(JSON.parse(after.stdout), [false, '9.9.9']);
});
