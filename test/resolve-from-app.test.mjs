// Instrumentation packages and startup hook modules are resolved from the app (its working directory, then its
// entry file's directory) before tracehook's own folder: a package only the app installed is found.
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
  writeFileSync(join(dir, 'app.cjs'), "// Usage: node app.cjs (a no-op app)\n");
  return dir;
}

const preload = ['--import', pathToFileURL(join(ROOT, 'register.mjs')).href];

test('an instrumentation installed only in the app (cwd) is loaded from there', async (t) => {
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

test('a startup hook package installed only in the app is found from the entry file when the cwd is elsewhere', async (t) => {
  const app = tempApp(t);
  const dir = spansDir(t);
  const env = { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_STARTUP_HOOK: 'hook-fixture:setup', FIXTURE_TRACEHOOK_API: join(ROOT, 'dist', 'api.js'), NODE_PATH: join(ROOT, 'node_modules') };
  const { code, stderr } = await start(join(app, 'app.cjs'), { cwd: tmpdir(), env, preload }).done;
  assert.equal(stderr, '');
  assert.equal(code, 0);
  assert.deepEqual((await readSpans(dir)).map((s) => s.name), ['hook-fixture ran']);
});
