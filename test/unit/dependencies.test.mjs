// package.json declares exactly what is used: every package the shipped code (src/, register.*, bin/, hooks/)
// imports is a dependency (or, for a built-in hook, an optional peer dependency), every dependency is imported or is an instrumentation loaded by name, and the build
// scripts' imports are declared too. Reads the source files; needs no build.
// Usage: node --test test/unit/dependencies.test.mjs
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { satisfies } from '@opentelemetry/instrumentation/build/src/semver.js';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dependencies = new Set(Object.keys(pkg.dependencies));
const declared = new Set([...dependencies, ...Object.keys(pkg.devDependencies), pkg.name]);

// A built-in hook may load optional peer dependencies: packages the user installs to use that hook
// (hooks/node-sdk.cjs sets up the user's own OpenTelemetry NodeSDK; its first comment lines say so).
const optionalPeers = new Set(Object.keys(pkg.peerDependencies ?? {}).filter((name) => pkg.peerDependenciesMeta?.[name]?.optional === true));

function files(...paths) {
  const out = [];
  const walk = (p) => {
    if (statSync(join(root, p)).isDirectory()) for (const e of readdirSync(join(root, p))) walk(join(p, e));
    else if (/\.(ts|mjs|cjs|js)$/.test(p)) out.push(p);
  };
  paths.forEach(walk);
  return out;
}

/** Package names a file loads at run time (type-only imports left out). */
function imported(file) {
  const text = readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .split('\n')
    .filter((line) => !/^\s*(import|export) type\b/.test(line))
    .join('\n')
    .replace(/typeof import\(\s*['"][^'"]+['"]\s*\)/g, '')
    // Resolved from a dependency's own folder (a dependency of a dependency, as exit-sender.ts finds grpc-js).
    .replace(/require\.resolve\(\s*['"][^'"]+['"],\s*\{\s*paths:/g, '');
  const names = new Set();
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\(\s*|\brequire\(\s*|\brequire\.resolve\(\s*|^import\s+)['"]([^'"./$][^'"]*)['"]/gm)) {
    if (isBuiltin(m[1])) continue;
    names.add(m[1].startsWith('@') ? m[1].split('/').slice(0, 2).join('/') : m[1].split('/')[0]);
  }
  return names;
}

// scripts/bundle-stubs/ is shipped inside the bundle.
const SHIPPED = files('src', 'register.mjs', 'register.cjs', 'not-built.cjs', 'bin', 'hooks', 'scripts/bundle-stubs');

test('every package the shipped code loads is a runtime dependency', () => {
  for (const file of SHIPPED) {
    for (const name of imported(file)) {
      if (name === pkg.name || (file.startsWith('hooks/') && optionalPeers.has(name))) continue;
      assert.ok(dependencies.has(name), `${file} loads ${name}, which package.json "dependencies" does not declare`);
    }
  }
});

test('the packages hooks/node-sdk.cjs loads beyond the dependencies are optional peer dependencies, in ranges that hold every version the tests install', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const extra = [...imported('hooks/node-sdk.cjs')].filter((name) => name !== pkg.name && !dependencies.has(name));
  assert.deepEqual(extra.sort(), ['@opentelemetry/auto-instrumentations-node', '@opentelemetry/sdk-node']);
  for (const name of extra) {
    assert.ok(optionalPeers.has(name), `${name} is not an optional peer dependency (peerDependencies + peerDependenciesMeta optional)`);
    const installed = lock.packages[`node_modules/${name}`]?.version;
    assert.ok(satisfies(installed, pkg.peerDependencies[name]), `${name} ${installed} (as tested) is outside the peer range ${pkg.peerDependencies[name]}`);
  }
  // npm refuses to install beside a user's copy outside an optional peer's range: the newest major's NodeSDK, which
  // test/node-sdk-hook.test.mjs runs a hook on, must be inside it too.
  const next = JSON.parse(readFileSync(join(root, 'test/fixtures/node-sdk-next/package.json'), 'utf8')).dependencies['@opentelemetry/sdk-node'];
  assert.ok(satisfies(next, pkg.peerDependencies['@opentelemetry/sdk-node']), `@opentelemetry/sdk-node ${next} is outside the peer range`);
});

test('every runtime dependency is loaded by the shipped code, or is an instrumentation the preload loads by name', () => {
  const used = new Set(SHIPPED.flatMap((file) => [...imported(file)]));
  // src/instrumentations/targets.ts lists the instrumentations loaded by name (`@opentelemetry/instrumentation-<name>`).
  const targets = readFileSync(join(root, 'src/instrumentations/targets.ts'), 'utf8');
  for (const m of targets.matchAll(/^\s+"([^"]+)": \[/gm)) used.add(`@opentelemetry/instrumentation-${m[1]}`);
  for (const name of dependencies) assert.ok(used.has(name), `${name} is a runtime dependency that nothing loads`);
});

test('each instrumentation loaded by name is declared, at the version the lock file installs', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const targets = readFileSync(join(root, 'src/instrumentations/targets.ts'), 'utf8');
  for (const m of targets.matchAll(/^\s+"([^"]+)": \[/gm)) {
    const name = `@opentelemetry/instrumentation-${m[1]}`;
    assert.equal(pkg.dependencies[name], lock.packages[`node_modules/${name}`]?.version, name);
  }
});

test('the build and maintenance scripts load only declared packages', () => {
  for (const file of files('scripts')) {
    for (const name of imported(file)) assert.ok(declared.has(name), `${file} loads ${name}, which package.json does not declare`);
  }
});
