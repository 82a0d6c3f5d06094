// Usage: node bench/bundler-build.mjs [rounds]   (after npm run build; default 5 rounds)
// What the tracehook webpack and Rollup plugins add to a build (issue 31: at most 10 %): the Express app of the
// bundler tests (test/fixtures/bundled/express-pg-redis.cjs: express, pg, ioredis) built with and without the
// plugin, rounds alternating, into a temp dir; prints the median wall time of each and the ratio. No caches kept.
import { mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import webpack from 'webpack';
import { rollup } from 'rollup';
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { TracehookWebpackPlugin } from '@tracehook/register/webpack';
import { tracehook } from '@tracehook/register/rollup';

const entry = new URL('../test/fixtures/bundled/express-pg-redis.cjs', import.meta.url).pathname;
const rounds = Number(process.argv[2] ?? 5);
const out = mkdtempSync(join(tmpdir(), 'tracehook-bundler-bench-'));

const webpackBuild = (plugins) =>
  new Promise((resolve, reject) =>
    webpack({ mode: 'none', target: 'node20', devtool: false, entry, output: { path: out, filename: 'app.cjs' }, plugins, cache: false }, (err, stats) =>
      err || stats.hasErrors() ? reject(err ?? new Error(stats.toString('errors-only'))) : resolve(),
    ),
  );
const rollupBuild = async (plugins) => {
  const build = await rollup({
    input: entry,
    external: (id) => id.startsWith('node:') || builtinModules.includes(id),
    plugins: [...plugins, nodeResolve({ preferBuiltins: true }), commonjs({ ignoreDynamicRequires: true, ignoreTryCatch: true }), json()],
    onwarn: () => {},
  });
  await build.write({ dir: out, format: 'cjs', entryFileNames: 'app.cjs', inlineDynamicImports: true });
  await build.close();
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, build, plugin] of [
  ['webpack', webpackBuild, () => new TracehookWebpackPlugin()],
  ['rollup', rollupBuild, () => tracehook()],
]) {
  const times = { without: [], with: [] };
  await build([]); // warm-up: module loading and JIT
  for (let i = 0; i < rounds; i++) {
    for (const key of i % 2 ? ['with', 'without'] : ['without', 'with']) {
      const start = performance.now();
      await build(key === 'with' ? [plugin()] : []);
      times[key].push(performance.now() - start);
    }
  }
  const [a, b] = [median(times.without), median(times.with)];
  console.log(`${name}: without the plugin ${a.toFixed(0)} ms, with it ${b.toFixed(0)} ms (median of ${rounds}): ×${(b / a).toFixed(3)}`);
}
rmSync(out, { recursive: true, force: true });
