// Issue 31: what tracehook's esbuild plugin adds to esbuild's time, per app of test/helpers/bundled-apps.mjs (CommonJS
// output, median of --rounds builds each, in one process, alternating with and without the plugin), and what the
// preload's missing-plugin check (src/bundler/missing-plugin.ts) costs on a bundle of about 5 MB, and what a bundle built
// with the plugin costs when run WITHOUT the preload (bench/apps/bundle-load.cjs: process CPU, with against without).
// Usage: npm run build && node bench/bundler.mjs [--rounds 9]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { tracehook } from '@tracehook/register/esbuild';
import { librariesWithoutPlugin } from '../dist/bundler/missing-plugin.js';
import { BUNDLED_APPS, OPTIONAL_EXTERNALS, SECOND_ENTRY } from '../test/helpers/bundled-apps.mjs';

const at = process.argv.indexOf('--rounds');
const rounds = at === -1 ? 9 : Number(process.argv[at + 1]);
const dir = mkdtempSync(join(tmpdir(), 'tracehook-bench-bundler-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const options = (entryPoints, outfile, plugins) => ({
  entryPoints,
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'silent',
  external: OPTIONAL_EXTERNALS,
  plugins,
});

async function timed(opts) {
  const t0 = performance.now();
  await build(opts);
  return performance.now() - t0;
}

try {
  console.log(`esbuild ${rounds} rounds, CommonJS output; median ms without → with the plugin`);
  for (const app of BUNDLED_APPS) {
    const without = [];
    const withPlugin = [];
    await timed(options([app.entry], join(dir, 'warm.cjs'), [tracehook()]));
    await timed(options([app.entry], join(dir, 'warm.cjs'), []));
    for (let i = 0; i < rounds; i++) {
      // Alternating which goes first, so neither always gets the warmer (or busier) slot.
      const pair = [() => timed(options([app.entry], join(dir, 'a.cjs'), [])), () => timed(options([app.entry], join(dir, 'b.cjs'), [tracehook()]))];
      if (i % 2 === 0) {
        without.push(await pair[0]());
        withPlugin.push(await pair[1]());
      } else {
        withPlugin.push(await pair[1]());
        without.push(await pair[0]());
      }
    }
    const [a, b] = [median(without), median(withPlugin)];
    console.log(`${app.name.padEnd(50)} ${a.toFixed(1).padStart(7)} → ${b.toFixed(1).padStart(7)}  ${(((b - a) / a) * 100).toFixed(1).padStart(5)} %`);
  }
  // Every library of the apps in one bundle, several times over (distinct copies, as a large app's code would be).
  // Run without the preload: a bundle built with the plugin against one built without it (process CPU, µs).
  const loadEntry = new URL('./apps/bundle-load.cjs', import.meta.url).pathname;
  const plain = join(dir, 'load-plain.cjs');
  const wrapped = join(dir, 'load-plugin.cjs');
  await build(options([loadEntry], plain, []));
  await build(options([loadEntry], wrapped, [tracehook()]));
  const cpu = (file) => Number(spawnSync(process.execPath, [file], { encoding: 'utf8', env: { PATH: process.env.PATH } }).stdout);
  const runs = { plain: [], wrapped: [] };
  for (let i = 0; i < rounds * 4; i++) {
    for (const [name, file] of i % 2 === 0
      ? [
          ['plain', plain],
          ['wrapped', wrapped],
        ]
      : [
          ['wrapped', wrapped],
          ['plain', plain],
        ])
      runs[name].push(cpu(file));
  }
  const [p, w] = [median(runs.plain), median(runs.wrapped)];
  console.log(
    `run without the preload (7 libraries loaded, ${rounds * 4} runs each): process CPU median ${(p / 1000).toFixed(1)} ms → ${(w / 1000).toFixed(1)} ms with the plugin (${(((w - p) / p) * 100).toFixed(1)} %)`,
  );
  const big = join(dir, 'big.cjs');
  await build({ ...options([SECOND_ENTRY], big, []), minify: false });
  const size = statSync(big).size;
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const found = librariesWithoutPlugin(big, ['http', 'pg', 'ioredis', 'grpc', 'mongodb', 'mysql2', 'redis', 'kafkajs']);
    times.push(performance.now() - t0);
    if (i === 0) console.log(`missing-plugin check on a ${(size / 1024 / 1024).toFixed(1)} MB bundle: finds ${found.join(', ')}`);
  }
  console.log(`missing-plugin check: median ${median(times).toFixed(2)} ms (first ${times[0].toFixed(2)} ms)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
