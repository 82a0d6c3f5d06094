// Bundles each instrumentation of the lazy table (src/instrumentations/targets.ts) into one file,
// dist/instrumentations/bundled/<name>.js, loaded when the app first loads a module it patches: one file
// read instead of its ≈ 10-25 (its own files, semantic-conventions whole, sql-common …), with
// semantic-conventions reduced to the constants it reads. @opentelemetry/api, core and instrumentation are not
// bundled: at run time they are the preload bundle's copies, read without resolving a path (scripts/shared-modules-plugin.mjs,
// src/instrumentations/shared-modules.ts). Node.js built-ins and the packages instrumented stay external (never
// bundled into their own instrumentation). An instrumentation with its own nested copy of api, core or
// instrumentation is not bundled (it is required from node_modules as before).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { stampBundleId } from './bundle-id.mjs';
import { LINE_LIMIT } from './bundle-line-limit.mjs';
import { semconvSubset } from './semconv-subset.mjs';
import { sharedModulesPlugin } from './shared-modules-plugin.mjs';

const require = createRequire(import.meta.url);
const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist/instrumentations/bundled');
const SHARED = ['@opentelemetry/api', '@opentelemetry/core', '@opentelemetry/instrumentation'];
const { INSTRUMENTATION_TARGETS } = require(join(root, 'dist/instrumentations/targets.js'));
const targets = new Set(
  Object.values(INSTRUMENTATION_TARGETS)
    .flat()
    .map((m) => (m.startsWith('@') ? m.split('/').slice(0, 2).join('/') : m.split('/')[0])),
);

const { SHARED_MODULES_KEY } = require(join(root, 'dist/instrumentations/shared-modules.js'));
const sharedModules = sharedModulesPlugin(SHARED, SHARED_MODULES_KEY);

const packageOf = (specifier) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
const keepExternal = {
  name: 'keep-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const pkg = packageOf(args.path);
      if (SHARED.includes(pkg) || targets.has(pkg) || !pkg.startsWith('@opentelemetry/')) return { path: args.path, external: true };
      return undefined;
    });
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
let bundled = 0;
const skipped = [];
// http and undici are in the preload bundle itself.
for (const name of Object.keys(INSTRUMENTATION_TARGETS).filter((n) => !['http', 'undici'].includes(n))) {
  const pkg = `@opentelemetry/instrumentation-${name}`;
  let entry;
  try {
    entry = require.resolve(pkg);
  } catch {
    skipped.push(`${name} (not installed)`);
    continue;
  }
  const own = createRequire(entry);
  const nested = SHARED.filter((id) => {
    try {
      return own.resolve(id) !== require.resolve(id);
    } catch {
      return false;
    }
  });
  if (nested.length > 0) {
    skipped.push(`${name} (own ${nested.join(', ')})`);
    continue;
  }
  const options = {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: [],
    mainFields: ['main'],
    logLevel: 'warning',
    legalComments: 'none',
    lineLimit: LINE_LIMIT,
    plugins: [keepExternal],
  };
  const { plugin } = await semconvSubset(options, dirname(entry));
  await build({ ...options, plugins: [plugin, sharedModules, keepExternal], minifyWhitespace: true, charset: 'ascii', outfile: join(out, `${name}.js`) });
  // An id, so that src/preload/load-bundle.ts compiles it with a V8 code cache of its own.
  stampBundleId(join(out, `${name}.js`));
  bundled++;
}
console.log(`dist/instrumentations/bundled: ${bundled} instrumentations${skipped.length ? `; not bundled: ${skipped.join(', ')}` : ''}`);
