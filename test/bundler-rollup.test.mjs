// Issue 31: an app bundled by Rollup (with @rollup/plugin-node-resolve, -commonjs and -json, as a Node.js app needs;
// Vite takes the same plugins) and `tracehook()` of @tracehook/register/rollup gives under the preload the same span
// tree as the app unbundled: names, kinds, parent links, http.route, db.* and rpc.* attributes. For each app of
// test/helpers/bundled-apps.mjs: CommonJS output and ES-module output; for the Express app (pg, ioredis, fetch) also
// minified output (terser, names kept) and output split into chunks; and an ES-module Koa app (@koa/router's ES build).
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { rollup } from 'rollup';
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { minify } from 'terser';
import { tracehook } from '@tracehook/register/rollup';
import { BUNDLED_APPS, ESM_REQUIRE_BANNER, OPTIONAL_EXTERNALS, SECOND_ENTRY, appServices, assertSameTree } from './helpers/bundled-apps.mjs';

const servicesFor = appServices();

/** Minifies each chunk with terser, keeping function and class names (what the tracehook plugin asks of a minifier). */
const terserKeepingNames = () => ({
  name: 'terser-keep-names',
  renderChunk: async (code) => ({ code: (await minify(code, { keep_classnames: true, keep_fnames: true })).code, map: null }),
});

/** Rollup output variants: output options, extra plugins, the file to run, and which apps (default all). */
const VARIANTS = {
  cjs: { output: { format: 'cjs', entryFileNames: '[name].cjs', exports: 'auto' } },
  esm: { output: { format: 'es', entryFileNames: '[name].mjs', banner: ESM_REQUIRE_BANNER } },
  'cjs minified, names kept': { output: { format: 'cjs', entryFileNames: '[name].cjs', exports: 'auto' }, plugins: [terserKeepingNames()], apps: ['express 5 + pg + ioredis + fetch'] },
  'esm split into chunks': {
    output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: 'chunk-[hash].mjs', banner: ESM_REQUIRE_BANNER },
    split: true,
    apps: ['express 5 + pg + ioredis + fetch'],
  },
};

const optional = (id) => builtinModules.includes(id.replace(/^node:/, '')) || id.startsWith('node:') || OPTIONAL_EXTERNALS.some((n) => id === n || (n.endsWith('/*') && id.startsWith(n.slice(0, -1))));

/**
 * Bundles `entry` into `dir` as `variant` says.
 * @param plugins - default `[tracehook()]`
 * @returns the path of the file to run
 */
export async function bundle(entry, dir, variant, plugins = [tracehook()]) {
  const { output, split } = VARIANTS[variant];
  const build = await rollup({
    input: split ? { app: entry, second: SECOND_ENTRY } : { app: entry },
    external: optional,
    plugins: [
      ...plugins,
      nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
      commonjs({ ignoreDynamicRequires: true, ignoreTryCatch: true }),
      json(),
      ...(VARIANTS[variant].plugins ?? []),
    ],
    onwarn: () => {},
  });
  await build.write({ dir, inlineDynamicImports: !split, ...output });
  await build.close();
  return join(dir, output.entryFileNames.replace('[name]', 'app'));
}

for (const [variant, { apps }] of Object.entries(VARIANTS)) {
  for (const app of BUNDLED_APPS.filter((a) => apps === undefined || apps.includes(a.name))) {
    test(`rollup, ${variant}: ${app.name} bundled with the plugin gives the same span tree as unbundled`, (t) => assertSameTree(t, app, servicesFor, (dir) => bundle(app.entry, dir, variant)));
  }
}

test("rollup, esm: an ES-module Koa app takes @koa/router's ES-module build; bundled with the plugin it gives the CommonJS app's span tree", (t) => {
  const koa = BUNDLED_APPS.find((a) => a.name === 'koa + @koa/router');
  return assertSameTree(t, koa, servicesFor, (dir) => bundle(join(dirname(koa.entry), 'koa.mjs'), dir, 'esm'));
});
