// Issue 31, scope 4 and 5: the preload says in one stderr line when the app is a bundle that carries libraries it
// would trace but was built without tracehook's bundler plugin, and is silent when all is well (built with the plugin,
// or not bundled); a bundle built with the plugin and run without the preload behaves as one built without it.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { tracehook } from '@tracehook/register/esbuild';
import { BUNDLED_APPS, ESM_REQUIRE_BANNER, outDir, runApp } from './helpers/bundled-apps.mjs';

const koa = BUNDLED_APPS.find((a) => a.name.startsWith('koa'));
const fastify = BUNDLED_APPS.find((a) => a.name.startsWith('fastify'));

/** `app` bundled by esbuild as CommonJS into `dir/name`, with `plugins`. @returns its path */
async function bundleApp(dir, name, plugins, app = koa) {
  const outfile = join(dir, name);
  await build({ entryPoints: [app.entry], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'silent', plugins });
  return outfile;
}

test('a bundle built without the plugin: one stderr line names the library and the fix; its spans lose the route', async (t) => {
  const file = await bundleApp(outDir(t), 'app.cjs', []);
  const run = await runApp(t, file);
  assert.equal(run.stdout.trim(), koa.answer);
  const lines = run.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, run.stderr);
  assert.match(
    lines[0],
    /^\[tracehook\] bundler: .*app\.cjs is a bundle with @koa\/router inside, built without tracehook's bundler plugin: they run untraced; add the plugin to the bundler's configuration \(esbuild: plugins: \[tracehook\(\)\] from '@tracehook\/register\/esbuild'/,
  );
  assert.ok(!run.spans.some((s) => s.attributes['http.route']), 'no route without the plugin');
});

test('a code-split bundle without the plugin: the line names the libraries in the chunks its entry imports; none with the plugin', async (t) => {
  for (const plugins of [[], [tracehook()]]) {
    const dir = outDir(t);
    // A second entry running the same app: everything moves into a chunk both entries import.
    const second = join(dir, 'second.cjs');
    writeFileSync(second, `require(${JSON.stringify(koa.entry)});\n`);
    await build({
      entryPoints: { app: koa.entry, second },
      outdir: join(dir, 'out'),
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      banner: { js: ESM_REQUIRE_BANNER },
      logLevel: 'silent',
      plugins,
    });
    const entry = join(dir, 'out', 'app.mjs');
    assert.ok(!readFileSync(entry, 'utf8').includes('node_modules/'), 'the entry itself carries no module id');
    const run = await runApp(t, entry);
    assert.equal(run.stdout.trim(), koa.answer);
    if (plugins.length) assert.equal(run.stderr, '');
    else assert.match(run.stderr, /^\[tracehook\] bundler: .*app\.mjs is a bundle with @koa\/router inside, built without tracehook's bundler plugin/);
  }
});

test('built with the plugin, or not bundled: no line', async (t) => {
  const file = await bundleApp(outDir(t), 'app.cjs', [tracehook()]);
  for (const app of [file, koa.entry]) {
    const run = await runApp(t, app);
    assert.equal(run.stdout.trim(), koa.answer);
    assert.equal(run.stderr, '', app);
    assert.ok(run.spans.some((s) => s.attributes['http.route'] === '/users/:id'));
  }
});

test('without the preload, a bundle built with the plugin gives the same output as one built without it', async (t) => {
  const dir = outDir(t);
  const [withPlugin, without] = await Promise.all([bundleApp(dir, 'with.cjs', [tracehook()]), bundleApp(dir, 'without.cjs', [])]);
  const [a, b] = await Promise.all([runApp(t, withPlugin, { preload: [] }), runApp(t, without, { preload: [] })]);
  assert.deepEqual({ code: a.code, stdout: a.stdout, stderr: a.stderr }, { code: b.code, stdout: b.stdout, stderr: b.stderr });
  assert.equal(a.stdout.trim(), koa.answer);
});

test('a library traced through its own diagnostics channel needs no plugin: no line for Fastify 5 bundled without it', async (t) => {
  const file = await bundleApp(outDir(t), 'app.cjs', [], fastify);
  const run = await runApp(t, file);
  assert.equal(run.stdout.trim(), fastify.answer);
  assert.equal(run.stderr, '');
  assert.ok(run.spans.some((s) => s.attributes['http.route'] === '/users/:id'));
});
