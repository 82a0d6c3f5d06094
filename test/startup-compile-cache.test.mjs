// The preload bundle's V8 code cache (src/preload/load-bundle.ts): written once beside the bundle, used by the
// next start, replaced when V8 rejects it, and never a cause of failure: whatever state the cache folder is in,
// the app's request is traced and nothing reaches stderr. Each test runs a private copy of the package, so its
// cache folder is its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { get, readSpans, ROOT, spansDir, start } from './helpers/fixture.mjs';

/** A copy of the built package (entries, package.json, dist/ without caches) using the checkout's node_modules. */
function packageCopy(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-pkg-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of ['register.mjs', 'register.cjs', 'package.json']) cpSync(join(ROOT, f), join(dir, f));
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: (src) => !src.includes('compile-cache') });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/**
 * What a cache file covers: the tags of its trailer (src/preload/load-bundle.ts: tags, their length as 2 bytes little
 * endian, format byte 0xc2). `served`: taken after the first span ended; a package name: after its patches ran.
 */
function tagsOf(file) {
  const data = readFileSync(file);
  assert.equal(data.at(-1), 0xc2, `${file}: a cache file's format byte`);
  const length = data.readUInt16LE(data.length - 3);
  return data
    .toString('latin1', data.length - 3 - length, data.length - 3)
    .split(',')
    .filter(Boolean);
}

const caches = (pkg) => readdirSync(join(pkg, 'dist', 'compile-cache')).filter((f) => f.endsWith('.v8'));

/**
 * Resolves once a cache file of `pkg` lists `tag`; rejects after 10 s. The cache is written in a later turn than the
 * one `tag` was reached in, so a test that stops the app right after its response could stop it before the write.
 */
async function cacheTagged(pkg, tag) {
  const folder = join(pkg, 'dist', 'compile-cache');
  const deadline = Date.now() + 10_000;
  while (!(existsSync(folder) && caches(pkg).some((f) => tagsOf(join(folder, f)).includes(tag)))) {
    if (Date.now() > deadline) throw new Error(`no cache file of ${pkg} lists ${tag} after 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * One traced GET / of the HTTP fixture under `pkg`'s preload; returns the app's stderr and its SERVER spans.
 * @param options.untilTag - stop the app only once a cache lists this tag
 * @param options.settleMs - then wait this long before stopping it (room for a write that must not happen)
 */
async function tracedRequest(t, pkg, env = {}, { untilTag, settleMs = 0 } = {}) {
  const spans = spansDir(t);
  const app = start('http-app.mjs', { preload: ['--import', join(pkg, 'register.mjs')], env: { TRACEHOOK_SPANS_DIR: spans, ...env } });
  const [, port] = await app.ready();
  assert.equal((await get(Number(port), '/')).status, 200);
  if (untilTag) await cacheTagged(pkg, untilTag);
  if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  app.kill('SIGTERM');
  const { stderr } = await app.done;
  return { stderr, servers: (await readSpans(spans)).filter((s) => s.kind === 'SERVER') };
}

test('the first start writes one code cache, the next starts from it unchanged; both trace the request, nothing on stderr', async (t) => {
  const pkg = packageCopy(t);
  const first = await tracedRequest(t, pkg, {}, { untilTag: 'served' });
  assert.equal(first.stderr, '');
  assert.equal(first.servers.length, 1);
  const [cache] = caches(pkg);
  assert.ok(cache, 'a cache was written');
  const written = statSync(join(pkg, 'dist', 'compile-cache', cache)).mtimeMs;
  assert.ok(tagsOf(join(pkg, 'dist', 'compile-cache', cache)).includes('served'), 'taken after the first span ended');

  // An ES-module startup hook too: its import() must not go through vm's experimental loader (a warning on stderr).
  const second = await tracedRequest(t, pkg, { TRACEHOOK_STARTUP_HOOK: './test/fixtures/hooks/count-hook.mjs:tracing.setup', FIXTURE_HOOK_LOG: join(pkg, 'hook.log') }, { settleMs: 200 });
  assert.equal(second.stderr, '');
  assert.equal(second.servers.length, 1);
  assert.equal(readFileSync(join(pkg, 'hook.log'), 'utf8').trim().split('\n').length, 1, 'the hook ran once');
  assert.deepEqual(caches(pkg), [cache]);
  assert.equal(statSync(join(pkg, 'dist', 'compile-cache', cache)).mtimeMs, written, 'an accepted cache is not written again');
});

/** The script that ends one span. */
const END_SPAN = "require('@opentelemetry/api').trace.getTracer('t').startSpan('s').end()";

/**
 * Runs `code` with `-e` under `pkg`'s preload (exit 0, nothing on stderr) and returns its one cache file's name, tags
 * and modification time.
 */
function runScript(t, pkg, code) {
  const env = { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t) };
  const r = spawnSync(process.execPath, ['--import', join(pkg, 'register.mjs'), '-e', code], { cwd: ROOT, encoding: 'utf8', env });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  const [cache, ...more] = caches(pkg);
  assert.deepEqual(more, [], 'one cache');
  const file = join(pkg, 'dist', 'compile-cache', cache);
  return { cache, tags: tagsOf(file), mtime: statSync(file).mtimeMs };
}

test('a start that ends no span writes its cache; the first start that ends one writes it again, with the request path, once', (t) => {
  const pkg = packageCopy(t);
  const started = runScript(t, pkg, '0');
  assert.deepEqual(started.tags, [], 'node:http is patched as it loads, not at startup');
  const served = runScript(t, pkg, END_SPAN);
  assert.deepEqual([served.cache, served.tags], [started.cache, ['served']]);
  assert.deepEqual(runScript(t, pkg, END_SPAN), served, 'not written again');
});

test('an app that loads packages the cache does not cover writes it again, covering both apps, once', (t) => {
  const pkg = packageCopy(t);
  // A script that ended a span, then an app with express and pg: their patching code was never in the cache.
  assert.deepEqual(runScript(t, pkg, END_SPAN).tags, ['served']);
  const loadBoth = "require('express'); require('pg')";
  const both = runScript(t, pkg, loadBoth);
  assert.deepEqual(both.tags, ['express', 'finalhandler', 'http', 'pg', 'pg-pool', 'router', 'served'], "the union: the first app's functions are still compiled");
  assert.deepEqual(runScript(t, pkg, loadBoth), both, 'covered: not written again');
  assert.deepEqual(runScript(t, pkg, END_SPAN), both, 'the first app is covered too');
});

test('writing a cache deletes the temporary files of writers killed before renaming theirs, once stale, and only those', (t) => {
  const pkg = packageCopy(t);
  const folder = join(pkg, 'dist', 'compile-cache');
  mkdirSync(folder);
  const temp = (name) => join(folder, `${name}-0123456789abcdef-v0.0.0-x64-00000000.v8.1.2.tmp`);
  const minutesAgo = (m) => new Date(Date.now() - m * 60_000);
  for (const name of ['preload', 'pg']) writeFileSync(temp(name), '');
  utimesSync(temp('preload'), minutesAgo(2), minutesAgo(2));
  utimesSync(temp('pg'), minutesAgo(2), minutesAgo(2));
  const fresh = join(folder, 'preload-0123456789abcdef-v0.0.0-x64-00000000.v8.3.4.tmp');
  writeFileSync(fresh, '');
  runScript(t, pkg, '0');
  assert.equal(existsSync(temp('preload')), false, 'a stale temporary file of the preload cache');
  assert.equal(existsSync(fresh), true, 'a write that may still be in progress');
  assert.equal(existsSync(temp('pg')), true, "another cache's temporary file: pruned by its own writer");
});

test('a cache V8 rejects is replaced, and the app is traced with nothing on stderr', async (t) => {
  const pkg = packageCopy(t);
  await tracedRequest(t, pkg);
  const [cache] = caches(pkg);
  const file = join(pkg, 'dist', 'compile-cache', cache);
  writeFileSync(file, Buffer.alloc(4096, 7));
  const { stderr, servers } = await tracedRequest(t, pkg);
  assert.equal(stderr, '');
  assert.equal(servers.length, 1);
  assert.notDeepEqual(readFileSync(file).subarray(0, 4096), Buffer.alloc(4096, 7), 'the rejected cache was replaced');
});

test('a cache folder that cannot be made (a file in its place): traced, nothing on stderr, under --import and --require', async (t) => {
  const pkg = packageCopy(t);
  writeFileSync(join(pkg, 'dist', 'compile-cache'), 'not a folder');
  const { stderr, servers } = await tracedRequest(t, pkg);
  assert.equal(stderr, '');
  assert.equal(servers.length, 1);

  const spans = spansDir(t);
  const app = start('http-app.mjs', { preload: ['--require', join(pkg, 'register.cjs')], env: { TRACEHOOK_SPANS_DIR: spans } });
  const [, port] = await app.ready();
  await get(Number(port), '/');
  app.kill('SIGTERM');
  assert.equal((await app.done).stderr, '');
  assert.equal((await readSpans(spans)).filter((s) => s.kind === 'SERVER').length, 1);
  assert.equal(readFileSync(join(pkg, 'dist', 'compile-cache'), 'utf8'), 'not a folder');
});

test('the bundle is written as its own module wrapper and compiled as read; without its build id it loads uncached, traced, nothing on stderr', async (t) => {
  // Module.wrap() at load made a second, flattened copy of the bundle's ≈ 0.5 MiB in every process and worker thread.
  const text = readFileSync(join(ROOT, 'dist', 'preload.bundle.js'), 'latin1');
  assert.ok(text.startsWith('(function (exports, require, module, __filename, __dirname) { '), text.slice(0, 80));
  const pkg = packageCopy(t);
  const bundle = join(pkg, 'dist', 'preload.bundle.js');
  writeFileSync(bundle, text.replace(/\/\/# tracehook-bundle-id=\w+\s*$/, ''), 'latin1');
  for (const preload of [
    ['--import', join(pkg, 'register.mjs')],
    ['--require', join(pkg, 'register.cjs')],
  ]) {
    const spans = spansDir(t);
    const app = start('http-app.mjs', { preload, env: { TRACEHOOK_SPANS_DIR: spans } });
    const [, port] = await app.ready();
    await get(Number(port), '/');
    app.kill('SIGTERM');
    assert.equal((await app.done).stderr, '');
    assert.equal((await readSpans(spans)).filter((s) => s.kind === 'SERVER').length, 1, preload[0]);
  }
  assert.equal(existsSync(join(pkg, 'dist', 'compile-cache')), false, 'no cache for a bundle without its id');
});

test('scripts given with -e and -p share one cache: their code is not one of the flags that name it', (t) => {
  const pkg = packageCopy(t);
  for (const args of [
    ['-e', 'setTimeout(() => {}, 1)'],
    ['-e', 'setTimeout(() => {}, 2)'],
    ['-p', '1 + 1'],
  ]) {
    const r = spawnSync(process.execPath, ['--import', join(pkg, 'register.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t) } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
  }
  assert.equal(caches(pkg).length, 1, caches(pkg).join(', '));
});

test("a lazily loaded instrumentation's bundle has a cache of its own: written once, used by the next start, replaced when rejected", (t) => {
  const pkg = packageCopy(t);
  const folder = join(pkg, 'dist', 'instrumentations', 'bundled', 'compile-cache');
  const loadPg = () => {
    const code = "process.stdout.write(String(require('pg').Client.prototype.query.__wrapped === true))";
    const r = spawnSync(process.execPath, ['--import', join(pkg, 'register.mjs'), '-e', code], { cwd: pkg, encoding: 'utf8', env: { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t) } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'true', 'instrumentation-pg applied');
    const files = readdirSync(folder);
    assert.deepEqual(
      files.map((f) => f.split('-')[0]),
      ['pg'],
      files.join(', '),
    );
    return { file: join(folder, files[0]), mtime: statSync(join(folder, files[0])).mtimeMs };
  };
  const first = loadPg();
  assert.deepEqual(loadPg(), first, 'an accepted cache is not written again');
  writeFileSync(first.file, Buffer.alloc(4096, 7));
  loadPg();
  assert.notDeepEqual(readFileSync(first.file).subarray(0, 4096), Buffer.alloc(4096, 7), 'the rejected cache was replaced');
});
