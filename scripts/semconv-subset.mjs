// An esbuild plugin that bundles only the @opentelemetry/semantic-conventions constants a build reads. Its
// CommonJS build is all-or-nothing (≈ 200 KiB, ≈ 10 ms to load); the OpenTelemetry packages read a few dozen
// constants, always as `semantic_conventions_1.NAME` after `semantic_conventions_1 = require(...)`.
// Used by scripts/bundle.mjs (the preload) and scripts/bundle-instrumentations.mjs (one bundle per instrumentation).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
const SEMCONV = '@opentelemetry/semantic-conventions';
const semconvEsm = join(dirname(require.resolve(SEMCONV)), 'index.mjs');

/**
 * The constants a build with `options` reads, from a probe build that leaves semantic-conventions out;
 * undefined (bundle it whole) if any use of it has another shape, or it is not used.
 */
async function usedSemconvNames(options) {
  const probe = await build({ ...options, external: [...(options.external ?? []), SEMCONV], write: false, logLevel: 'silent', minify: false, minifyWhitespace: false });
  const text = probe.outputFiles[0].text;
  const requires = text.split(`require("${SEMCONV}")`).length - 1;
  const assigned = [...text.matchAll(/\b(semantic_conventions_\d+) = (?:__toESM\()?require\("@opentelemetry\/semantic-conventions"\)/g)];
  if (requires === 0 || assigned.length !== requires) return undefined;
  const vars = new Set(assigned.map((m) => m[1]));
  const names = new Set();
  for (const v of vars) {
    for (const m of text.matchAll(new RegExp(`\\b${v}\\b(.)(\\w*)`, 'g'))) {
      if (m[1] === '.') names.add(m[2]);
      else if (m[1] !== ' ') return undefined; // `v[...]`, `v)` …: a use this scan cannot follow
    }
  }
  return [...names];
}

/**
 * The subset as a CommonJS object of the constants' values when they are all strings or numbers (as the
 * semantic conventions are): no module interop, nothing of the package evaluated at run time; else an ES module
 * re-exporting them from the package's ESM build.
 */
function subsetModule(names) {
  const all = require(SEMCONV);
  const literal = names.every((n) => ['string', 'number'].includes(typeof all[n]));
  if (!literal) return `export { ${names.join(', ')} } from ${JSON.stringify(semconvEsm)};`;
  return `module.exports = {\n${names.map((n) => `  ${n}: ${JSON.stringify(all[n])},`).join('\n')}\n};\n`;
}

/** `{ plugin, names }`: the plugin for a build with `options` (a no-op when `names` is undefined). */
export async function semconvSubset(options, resolveDir) {
  const names = await usedSemconvNames(options);
  const plugin = {
    name: 'semconv-subset',
    setup(b) {
      if (!names) return;
      b.onResolve({ filter: /^@opentelemetry\/semantic-conventions$/ }, () => ({ path: 'semconv-subset', namespace: 'semconv-subset' }));
      b.onLoad({ filter: /.*/, namespace: 'semconv-subset' }, () => ({ contents: subsetModule(names), resolveDir, loader: 'js' }));
    },
  };
  return { plugin, names };
}
