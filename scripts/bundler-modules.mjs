// Writes dist/bundler/modules.json: the packages and files the instrumentations patch (their
// InstrumentationNodeModuleDefinition names and InstrumentationNodeModuleFile paths), which the bundler plugins
// (src/bundler/) wrap so that each one's exports reach the preload. Derived, at build time, from the same
// catalogue the preload loads from: the instrumentations of src/instrumentations/targets.ts (auto-instrumentations-node's
// set) and tracehook's own route instrumentation, each created disabled to read its module definitions.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const root = new URL('..', import.meta.url).pathname;
const { INSTRUMENTATION_TARGETS } = require(join(root, 'dist/instrumentations/targets.js'));
const { RouteInstrumentation } = require(join(root, 'dist/instrumentations/routes/route-instrumentation.js'));

/** `pg` of `pg/lib/client.js`, `@grpc/grpc-js` of `@grpc/grpc-js/build/src/server.js`. */
function packageOf(name) {
  const parts = name.split('/');
  return parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** instrumentation name → its definitions, as `{ name, files }` with files relative to the package folder. */
function definitionsOf(instrumentation) {
  const modules = new Map();
  for (const def of instrumentation.getModuleDefinitions()) {
    if (typeof def.name !== 'string' || isBuiltin(def.name)) continue;
    const pkg = packageOf(def.name);
    const entry = modules.get(pkg) ?? { name: pkg, main: false, files: new Set() };
    modules.set(pkg, entry);
    if (def.name === pkg) entry.main = true;
    else entry.files.add(def.name.slice(pkg.length + 1));
    for (const file of def.files ?? []) {
      const name = String(file.name).split('\\').join('/');
      if (name.startsWith(`${pkg}/`)) entry.files.add(name.slice(pkg.length + 1));
    }
  }
  return [...modules.values()];
}

const byName = { http: new RouteInstrumentation({ enabled: false }) };
for (const name of Object.keys(INSTRUMENTATION_TARGETS)) {
  if (name === 'http' || INSTRUMENTATION_TARGETS[name].every((t) => isBuiltin(t))) continue;
  const exports = require(`@opentelemetry/instrumentation-${name}`);
  const cls = Object.entries(exports).find(([key, value]) => key.endsWith('Instrumentation') && typeof value === 'function');
  if (cls) byName[name] = new cls[1]({ enabled: false });
}

const modules = [];
for (const [instrumentation, instance] of Object.entries(byName)) {
  for (const m of definitionsOf(instance)) modules.push({ instrumentation, name: m.name, main: m.main, files: [...m.files].sort() });
}
modules.sort((a, b) => a.name.localeCompare(b.name) || a.instrumentation.localeCompare(b.instrumentation));
mkdirSync(join(root, 'dist/bundler'), { recursive: true });
writeFileSync(join(root, 'dist/bundler/modules.json'), `${JSON.stringify({ modules }, null, 1)}\n`);
