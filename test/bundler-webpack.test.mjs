// Issue 31: an app bundled by webpack 5 with `plugins: [new TracehookWebpackPlugin()]` (@tracehook/register/webpack)
// gives under the preload the same span tree as the app unbundled: names, kinds, parent links, http.route, db.* and
// rpc.* attributes. For each app of test/helpers/bundled-apps.mjs: CommonJS output and ES-module output; for the
// Express app (pg, ioredis, fetch) also minified output with names kept and output split into chunks. And NestJS's own
// webpack build (nest-cli.json `"webpack": true`: node_modules left external, as webpack-node-externals does), which
// needs no plugin.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import webpack from 'webpack';
import { TracehookWebpackPlugin } from '@tracehook/register/webpack';
import { ROOT } from './helpers/fixture.mjs';
import { BUNDLED_APPS, OPTIONAL_EXTERNALS, SECOND_ENTRY, appServices, assertSameTree, outDir, runApp } from './helpers/bundled-apps.mjs';

const servicesFor = appServices();

/** webpack output variants: options beside the common ones, the file to run, and which apps (default all). */
const VARIANTS = {
  cjs: { options: { output: { filename: 'app.cjs', library: { type: 'commonjs2' } } }, file: 'app.cjs' },
  esm: { options: { experiments: { outputModule: true }, output: { filename: 'app.mjs', module: true, chunkFormat: 'module', library: { type: 'module' } } }, file: 'app.mjs' },
  'cjs minified, names kept': {
    options: { mode: 'production', optimization: { minimizeOptions: { javascript: { keep_classnames: true, keep_fnames: true } } }, output: { filename: 'app.cjs', library: { type: 'commonjs2' } } },
    file: 'app.cjs',
    apps: ['express 5 + pg + ioredis + fetch'],
  },
  'cjs split into chunks': {
    options: { optimization: { splitChunks: { chunks: 'all', minSize: 0 } }, output: { filename: '[name].cjs', chunkFilename: 'chunk-[id].cjs' } },
    file: 'app.cjs',
    split: true,
    apps: ['express 5 + pg + ioredis + fetch'],
  },
};

/** Packages NestJS requires only when installed, kept external as `require()` calls. */
const OPTIONAL = Object.fromEntries(OPTIONAL_EXTERNALS.filter((n) => !n.endsWith('*')).map((n) => [n, `commonjs ${n}`]));
const optionalExternal = ({ request }, callback) => {
  const name = OPTIONAL_EXTERNALS.find((n) => request === n || (n.endsWith('/*') && request.startsWith(n.slice(0, -1))));
  callback(undefined, name === undefined ? undefined : `commonjs ${request}`);
};

/**
 * Builds with webpack's Node API.
 * @returns webpack's stats, after asserting the build had no error
 */
export function runWebpack(config) {
  return new Promise((resolve, reject) =>
    webpack({ mode: 'none', target: 'node20', devtool: false, ...config }, (err, stats) => {
      if (err) return reject(err);
      if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
      resolve(stats);
    }),
  );
}

/**
 * Bundles `entry` into `dir` as `variant` says.
 * @param plugins - default `[new TracehookWebpackPlugin()]`
 * @returns the path of the file to run
 */
export async function bundle(entry, dir, variant, plugins = [new TracehookWebpackPlugin()]) {
  const { options, file, split } = VARIANTS[variant];
  await runWebpack({
    ...options,
    entry: split ? { app: entry, second: SECOND_ENTRY } : entry,
    output: { path: dir, ...options.output },
    externals: [OPTIONAL, optionalExternal],
    plugins,
  });
  return join(dir, file);
}

for (const [variant, { apps }] of Object.entries(VARIANTS)) {
  for (const app of BUNDLED_APPS.filter((a) => apps === undefined || apps.includes(a.name))) {
    test(`webpack, ${variant}: ${app.name} bundled with the plugin gives the same span tree as unbundled`, (t) => assertSameTree(t, app, servicesFor, (dir) => bundle(app.entry, dir, variant)));
  }
}

const nest = BUNDLED_APPS.find((a) => a.name === 'nestjs on express');

test("webpack, NestJS's own build (nest-cli.json webpack: true: node_modules external): the same span tree as unbundled, no plugin needed", (t) =>
  assertSameTree(t, nest, servicesFor, async () => {
    // Its output stays in the project (dist/ there; under the ignored tmp/ here), to require() from node_modules.
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, 'tmp', 'nest-dist-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // (main.js in a Nest project; .cjs here, where package.json says "type": "module".) @nestjs/cli's webpack defaults: target node, mode none, no devtool, webpack-node-externals (every bare
    // specifier left to require() from node_modules), __dirname and __filename as Node.js gives them.
    await runWebpack({
      entry: nest.entry,
      output: { path: dir, filename: 'main.cjs' },
      externalsPresets: { node: true },
      externals: [({ request }, callback) => callback(undefined, /^[^./]/.test(request) ? `commonjs ${request}` : undefined)],
      optimization: { nodeEnv: false },
      node: { __filename: false, __dirname: false },
    });
    return join(dir, 'main.cjs');
  }));

test('webpack: a minified build without kept names gets a warning naming the options; with them, none', async (t) => {
  const { entry } = BUNDLED_APPS.find((a) => a.name === 'koa + @koa/router');
  const warnings = async (optimization) => {
    const stats = await runWebpack({
      mode: 'production',
      entry,
      output: { path: outDir(t), filename: 'x.cjs' },
      externals: [OPTIONAL, optionalExternal],
      optimization,
      plugins: [new TracehookWebpackPlugin()],
    });
    return stats.compilation.warnings.map((w) => w.message).filter((m) => m.includes('tracehook'));
  };
  assert.deepEqual(await warnings({}), [
    'tracehook: minified without kept names: some libraries may lose their spans or route names in the bundle; set optimization.minimizeOptions.javascript to { keep_classnames: true, keep_fnames: true }',
  ]);
  assert.deepEqual(await warnings({ minimizeOptions: { javascript: { keep_classnames: true, keep_fnames: true } } }), []);
});

test('webpack: a bundle built with the plugin and run without the preload prints what one built without it prints', async (t) => {
  const app = BUNDLED_APPS.find((a) => a.name === 'koa + @koa/router');
  const withPlugin = await runApp(t, await bundle(app.entry, outDir(t), 'cjs'), { preload: [] });
  const without = await runApp(t, await bundle(app.entry, outDir(t), 'cjs', []), { preload: [] });
  assert.deepEqual([withPlugin.code, withPlugin.stdout, withPlugin.stderr], [0, `${app.answer}\n`, '']);
  assert.deepEqual([without.code, without.stdout, without.stderr], [withPlugin.code, withPlugin.stdout, withPlugin.stderr]);
});

test("webpack, esm: an ES-module Koa app takes @koa/router's ES-module build; bundled with the plugin it gives the CommonJS app's span tree", (t) => {
  const koa = BUNDLED_APPS.find((a) => a.name === 'koa + @koa/router');
  return assertSameTree(t, koa, servicesFor, (dir) => bundle(join(dirname(koa.entry), 'koa.mjs'), dir, 'esm'));
});
