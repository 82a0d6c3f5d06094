// Instrumentation packages and startup hook modules are resolved from the app (its entry file's directory, or the
// instrumented package's) before tracehook's own folder: a package only the app installed is found. Never from the
// working directory of an app with an entry file, nor NODE_PATH: code planted there never runs (issue 29, item 1).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { FIXTURES, ROOT, readSpans, spansDir, start } from './helpers/fixture.mjs';

/** A temp app with its own node_modules: the fixture instrumentation and hook packages, and @opentelemetry/api linked. */
function tempApp(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-app-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pkg = (name, fixture) => {
    mkdirSync(join(dir, 'node_modules', name), { recursive: true });
    copyFileSync(join(FIXTURES, 'app-installed', fixture), join(dir, 'node_modules', name, 'index.js'));
  };
  pkg('@opentelemetry/instrumentation-fixture', 'instrumentation-fixture.cjs');
  pkg('hook-fixture', 'hook-fixture.cjs');
  writeFileSync(join(dir, 'app.cjs'), '// Usage: node app.cjs (a no-op app)\n');
  writeFileSync(
    join(dir, 'worker-app.cjs'),
    "// Usage: node worker-app.cjs (starts itself as a worker thread)\nconst wt = require('node:worker_threads');\nif (wt.isMainThread) new wt.Worker(__filename);\n",
  );
  return dir;
}

const preload = ['--import', pathToFileURL(join(ROOT, 'register.mjs')).href];

test('an instrumentation installed only in the app (beside its entry) is loaded from there', async (t) => {
  const app = tempApp(t);
  const dir = spansDir(t);
  // No ESM loader: this is about resolution (and module.register() prints a deprecation warning on Node 26).
  const env = { TRACEHOOK_SPANS_DIR: dir, OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,fixture', TRACEHOOK_ESM_LOADER: 'false' };
  const { code, stderr } = await start(join(app, 'app.cjs'), { cwd: app, env, preload }).done;
  assert.equal(stderr, '');
  assert.equal(code, 0);
  const names = (await readSpans(dir)).map((s) => s.name);
  assert.deepEqual(names, [`fixture loaded from ${join(app, 'node_modules', '@opentelemetry', 'instrumentation-fixture')}`]);
});

/**
 * Runs `entry` of a temp app with TRACEHOOK_STARTUP_HOOK=hook-fixture:setup, the cwd elsewhere (NODE_PATH is for the
 * hook's own `require('@opentelemetry/api')`, which Node.js resolves). @returns the span names
 */
async function runHookFixture(t, entry) {
  const app = tempApp(t);
  const dir = spansDir(t);
  const env = { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_STARTUP_HOOK: 'hook-fixture:setup', FIXTURE_TRACEHOOK_API: join(ROOT, 'dist', 'api.js'), NODE_PATH: join(ROOT, 'node_modules') };
  const { code, stderr } = await start(join(app, entry), { cwd: tmpdir(), env, preload }).done;
  assert.equal(stderr, '');
  assert.equal(code, 0);
  return (await readSpans(dir)).map((s) => s.name);
}

test('a startup hook package installed only in the app is found from the entry file when the cwd is elsewhere', async (t) => {
  assert.deepEqual(await runHookFixture(t, 'app.cjs'), ['hook-fixture ran']);
});

/** A directory anyone could write to, with `files` (paths under it) holding the planted fixture. */
function plantedDir(t, files) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-planted-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of files) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    copyFileSync(join(FIXTURES, 'app-installed', 'planted.cjs'), join(dir, file));
  }
  return dir;
}

test('a worker thread finds the startup hook package its app installed, as its main thread does', async (t) => {
  assert.deepEqual(
    (await runHookFixture(t, 'worker-app.cjs')).filter((n) => n === 'hook-fixture ran'),
    ['hook-fixture ran', 'hook-fixture ran'],
  );
});

test("an instrumentation planted in the working directory never runs: the app's pg loads ours", async (t) => {
  const cwd = plantedDir(t, ['node_modules/@opentelemetry/instrumentation-pg/index.js', 'node_modules/@opentelemetry/instrumentation-fixture/index.js']);
  const env = { TRACEHOOK_SPANS_DIR: spansDir(t), OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,pg', TRACEHOOK_ESM_LOADER: 'false' };
  const { code, stderr } = await start(join(FIXTURES, 'app-installed', 'requires-pg.cjs'), { cwd, env, preload }).done;
  assert.equal(stderr, '');
  assert.equal(code, 0);
  // Loaded at startup (no target package known): not found, one line says so; the planted copy is not it.
  const eager = await start(join(FIXTURES, 'app-installed', 'requires-pg.cjs'), { cwd, env: { ...env, OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,fixture' }, preload }).done;
  assert.doesNotMatch(eager.stderr, /planted code ran/);
  assert.match(eager.stderr, /OTEL_NODE_ENABLED_INSTRUMENTATIONS.*fixture: Cannot find module/);
  assert.equal(eager.code, 0);
});

test('an instrumentation on NODE_PATH never runs', async (t) => {
  const planted = plantedDir(t, ['node_modules/@opentelemetry/instrumentation-fixture/index.js']);
  const env = { TRACEHOOK_SPANS_DIR: spansDir(t), OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,fixture', TRACEHOOK_ESM_LOADER: 'false', NODE_PATH: join(planted, 'node_modules') };
  const { code, stderr } = await start(join(FIXTURES, 'app-installed', 'requires-pg.cjs'), { cwd: tmpdir(), env, preload }).done;
  assert.doesNotMatch(stderr, /planted code ran/);
  assert.match(stderr, /fixture: Cannot find module/);
  assert.equal(code, 0);
});

test('a startup hook resolves nothing from the working directory: `otlp`, and a package name only the cwd has', async (t) => {
  const cwd = plantedDir(t, ['node_modules/@opentelemetry/instrumentation/build/src/platform/node/RequireInTheMiddleSingleton.js', 'hook-fixture/index.js']);
  writeFileSync(join(cwd, 'hook-fixture', 'package.json'), '{}');
  const app = join(FIXTURES, 'app-installed', 'requires-pg.cjs');
  const otlp = { TRACEHOOK_STARTUP_HOOK: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', TRACEHOOK_ESM_LOADER: 'false' };
  const first = await start(app, { cwd, env: otlp, preload }).done;
  assert.equal(first.stderr, '');
  assert.equal(first.code, 0);
  // A bare name is a package, resolved as the app would: a folder of that name in the cwd is not it.
  const named = await start(app, { cwd, env: { TRACEHOOK_STARTUP_HOOK: 'hook-fixture:setup', TRACEHOOK_ESM_LOADER: 'false' }, preload }).done;
  assert.doesNotMatch(named.stderr, /planted code ran/);
  assert.match(named.stderr, /TRACEHOOK_STARTUP_HOOK="hook-fixture:setup" is not valid: expected a module that can be imported/);
  assert.equal(named.code, 0);
});
