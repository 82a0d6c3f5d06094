// Issue 31: an app bundled by esbuild with `plugins: [tracehook()]` (@tracehook/register/esbuild) gives under the
// preload the same span tree as the app unbundled: names, kinds, parent links, http.route, db.* and rpc.* attributes.
// For each app of test/helpers/bundled-apps.mjs: CommonJS output, ES-module output, minified CommonJS with keepNames,
// and ES-module output split into chunks.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { tracehook } from '@tracehook/register/esbuild';
import { BUNDLED_APPS, ESM_REQUIRE_BANNER, OPTIONAL_EXTERNALS, SECOND_ENTRY, appServices, assertSameTree, outDir, runApp, spanTreeSignature, unbundledSignature } from './helpers/bundled-apps.mjs';

const servicesFor = appServices();

/** esbuild output variants: options beside the entry, and the file to run (in the output directory). */
const VARIANTS = {
  cjs: { options: { format: 'cjs' }, file: 'app.cjs' },
  esm: { options: { format: 'esm', banner: { js: ESM_REQUIRE_BANNER } }, file: 'app.mjs' },
  'cjs minified, keepNames': { options: { format: 'cjs', minify: true, keepNames: true }, file: 'app.cjs' },
  'esm split into chunks': { options: { format: 'esm', splitting: true, banner: { js: ESM_REQUIRE_BANNER } }, file: 'app.mjs', split: true },
};

/**
 * Bundles `entry` into `dir` as `variant` says.
 * @param plugins - default `[tracehook()]`
 * @returns the path of the file to run
 */
async function bundle(entry, dir, variant, plugins = [tracehook()]) {
  const { options, file, split } = VARIANTS[variant];
  const extension = file.slice(file.lastIndexOf('.'));
  await build({
    bundle: true,
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    external: OPTIONAL_EXTERNALS,
    plugins,
    ...options,
    ...(split ? { entryPoints: { app: entry, second: SECOND_ENTRY }, outdir: dir, outExtension: { '.js': extension } } : { entryPoints: [entry], outfile: join(dir, file) }),
  });
  return join(dir, file);
}

for (const app of BUNDLED_APPS) {
  for (const variant of Object.keys(VARIANTS)) {
    test(`esbuild, ${variant}: ${app.name} bundled with the plugin gives the same span tree as unbundled`, (t) => assertSameTree(t, app, servicesFor, (dir) => bundle(app.entry, dir, variant)));
  }
}

test("esbuild, esm: an ES-module Koa app takes @koa/router's ES-module build; bundled with the plugin it gives the CommonJS app's span tree", async (t) => {
  const koa = BUNDLED_APPS.find((a) => a.name.startsWith('koa'));
  const expected = await unbundledSignature(t, koa, {});
  const dir = outDir(t);
  const file = await bundle(join(dirname(koa.entry), 'koa.mjs'), dir, 'esm');
  const { metafile } = await build({ entryPoints: [join(dirname(koa.entry), 'koa.mjs')], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
  assert.ok(Object.keys(metafile.inputs).includes('node_modules/@koa/router/dist/index.mjs'), 'the ES-module build is bundled');
  const run = await runApp(t, file);
  assert.equal(run.stderr, '');
  assert.equal(run.stdout.trim(), koa.answer);
  assert.deepEqual(spanTreeSignature(run.spans), expected);
});
