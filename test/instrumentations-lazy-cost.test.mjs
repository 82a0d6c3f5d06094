// What the preload loads, counted in files rather than timed (a shared machine cannot fail a count): disabled, it
// loads nothing beyond its entry; enabled, one bundle; a lazily loaded instrumentation is one bundled file that
// uses the preload bundle's @opentelemetry/instrumentation, api and core instead of evaluating a second copy of each.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import { ROOT, spansDir } from './helpers/fixture.mjs';

/** The files in require.cache once `code` has run under `preload`, relative to the repository. */
function loadedFiles(t, preload, code, env = {}) {
  const script = `${code};process.stdout.write(JSON.stringify(Object.keys(require.cache)))`;
  const r = spawnSync(process.execPath, [...preload, '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t), ...env } });
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  return JSON.parse(r.stdout).map((f) =>
    f
      .slice(ROOT.length + 1)
      .split(sep)
      .join('/'),
  );
}

for (const preload of [
  ['--require', join(ROOT, 'register.cjs')],
  ['--import', '@tracehook/register'],
]) {
  test(`${preload[0]}, TRACEHOOK_DISABLED=true: no file of the preload is loaded beyond its entry`, (t) => {
    const files = loadedFiles(t, preload, '0', { TRACEHOOK_DISABLED: 'true' });
    assert.deepEqual(
      files.filter((f) => f !== 'register.cjs'),
      [],
    );
  });

  test(`${preload[0]}: the preload is one bundle and its loader, with none of dist/'s other files`, (t) => {
    const files = loadedFiles(t, preload, "require('node:http')");
    assert.deepEqual(files.filter((f) => f.startsWith('dist/')).sort(), ['dist/preload.bundle.js', 'dist/preload/load-bundle.js']);
  });
}

test('a lazily loaded instrumentation (pg) is one bundled file, using the bundle’s @opentelemetry/instrumentation, api and core without resolving them', (t) => {
  const files = loadedFiles(t, ['--require', join(ROOT, 'register.cjs')], "require('pg')");
  assert.ok(files.includes('dist/instrumentations/bundled/pg.js'), 'instrumentation-pg was loaded, from its bundle');
  for (const pkg of ['instrumentation-pg', 'sql-common', 'semantic-conventions']) {
    assert.deepEqual(
      files.filter((f) => f.startsWith(`node_modules/@opentelemetry/${pkg}/`)),
      [],
      `${pkg} is in the bundle`,
    );
  }
  // The bundle's copies are handed over by name (globalThis), not by resolving the packages' files into require.cache.
  for (const pkg of ['instrumentation', 'api', 'core']) {
    assert.deepEqual(
      files.filter((f) => f.startsWith(`node_modules/@opentelemetry/${pkg}/`)),
      [],
      pkg,
    );
  }
});

for (const protocol of ['http/protobuf', 'http/json']) {
  test(`OTLP ${protocol}: the exporter is one bundled file, without otlp-transformer, sdk-metrics or a second api and core`, (t) => {
    // Nothing listens on port 9: the exporter is built at startup and never gets to send.
    const files = loadedFiles(t, ['--import', '@tracehook/register'], '0', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    assert.ok(files.includes('dist/otlp-http.bundle.js'), 'the OTLP/HTTP parts were loaded, from their bundle');
    const packages = files.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/').slice(1, 3).join('/'));
    const shared = ['@opentelemetry/api', '@opentelemetry/core', '@opentelemetry/instrumentation'];
    assert.deepEqual(
      packages.filter((p) => !shared.includes(p)),
      [],
      'only the preload bundle’s shared copies come from node_modules',
    );
    for (const pkg of ['api', 'core']) assert.ok(packages.filter((p) => p === `@opentelemetry/${pkg}`).length <= 1, `${pkg} evaluated once`);
  });
}

test('require-in-the-middle sees only the requires that can reach an instrumented package (its own debug log, DEBUG=require-in-the-middle)', (t) => {
  const r = spawnSync(process.execPath, ['--require', join(ROOT, 'register.cjs'), '-e', "require('express');require('pg');require('ioredis')"], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t), DEBUG: 'require-in-the-middle' },
  });
  assert.equal(r.status, 0, r.stderr);
  const files = [...r.stderr.matchAll(/processing non-core module require\('[^']*'\): (.*)$/gm)].map((m) => m[1].split(`${sep}node_modules${sep}`).pop().split(sep).join('/'));
  const packages = files.map((f) => f.split('/')[0]);
  // express (and router and finalhandler, Express 5's) for the route instrumentation; pg and pg-pool for theirs. ioredis 6
  // publishes TracingChannels: traced from them, it loads no instrumentation and never meets the hook.
  assert.deepEqual([...new Set(packages)].sort(), ['express', 'finalhandler', 'pg', 'pg-pool', 'router']);
  // In a package, only the files its instrumentations patch, its main file and tracehook's re-require of it go through:
  // pg's files requiring each other skip the hook but `./client` (instrumentation-pg
  // patches pg/lib/client.js), express's, and router's but `./lib/route` and `./lib/layer` (the route instrumentation patches them).
  const seen = (pkg) => [...new Set(files.filter((f) => f.startsWith(`${pkg}/`)).map((f) => f.slice(pkg.length + 1)))].sort();
  assert.deepEqual(seen('ioredis'), []);
  assert.deepEqual(seen('pg'), ['lib/client.js', 'lib/index.js']);
  assert.deepEqual(seen('express'), ['index.js']);
  assert.deepEqual(seen('router'), ['index.js', 'lib/layer.js', 'lib/route.js']);
  assert.deepEqual(seen('finalhandler'), ['index.js']);
  // The instrumentations applied: pg's main export is wrapped, and its client file was patched as a file; ioredis 6's
  // sendCommand is not (its channels trace it).
  const check = spawnSync(
    process.execPath,
    [
      '--require',
      join(ROOT, 'register.cjs'),
      '-e',
      "process.stdout.write(String(require('pg').Client.prototype.query.__wrapped === true && require('ioredis').prototype.sendCommand.__wrapped === undefined))",
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t), OTEL_LOG_LEVEL: 'debug' } },
  );
  assert.match(check.stderr, /instrumentation-pg Applying instrumentation patch for nodejs module file on require hook \{[^}]*fileName: 'pg\/lib\/client\.js'/);
  assert.equal(check.stdout, 'true', check.stderr);
});

test("require-in-the-middle resolves a watched package's main file once per package folder, not once per file that loads", (t) => {
  // Counts Module._resolveFilename calls with `paths` (require.resolve(name, { paths })), which is how the hook asks.
  const count = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    const asked = [];
    Module._resolveFilename = function (request, parent, isMain, options) {
      if (options?.paths) asked.push(request + ' ' + options.paths.join());
      return resolve.apply(this, arguments);
    };
    process.on('exit', () => process.stdout.write(JSON.stringify(asked)));
  `;
  const r = spawnSync(process.execPath, ['--require', join(ROOT, 'register.cjs'), '-e', `${count};require('pg');require('ioredis')`], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t) },
  });
  assert.equal(r.status, 0, r.stderr);
  const asked = JSON.parse(r.stdout);
  assert.ok(asked.length > 0, 'the hook looked up main files');
  assert.deepEqual(asked, [...new Set(asked)], 'each package folder once');
});
