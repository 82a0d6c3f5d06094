// The app set of issue 31 ("the same trace whether the app is bundled or not") and what the bundler tests compare:
// each app is a self-driving fixture under test/fixtures/bundled/ (it calls itself, prints its answer, exits), run
// unbundled and as a bundle under the preload; the span trees must have the same signature. Shared by the tests of
// every bundler plugin (esbuild, webpack, Rollup).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { readSpans, spansDir, start, FIXTURES } from './fixture.mjs';
import { startPostgres, startRedis } from './db-servers.mjs';

const DIR = join(FIXTURES, 'bundled');

/**
 * The apps: `name`, `entry` (absolute path of the CommonJS fixture), `services` it needs (`postgres`, `redis`: started
 * with test/helpers/db-servers.mjs, passed as PG_PORT and REDIS_PORT) and `answer`, what it prints when it worked.
 */
export const BUNDLED_APPS = [
  { name: 'express 5 + pg + ioredis + fetch', entry: join(DIR, 'express-pg-redis.cjs'), services: ['postgres', 'redis'], answer: 'user 7 cached pong' },
  // Its `import`s take the packages' ES-module entries where they have one (pg's esm/index.mjs).
  { name: 'express 5 + pg + ioredis + fetch, an ES module', entry: join(DIR, 'express-pg-redis.mjs'), services: ['postgres', 'redis'], answer: 'user 7 cached pong' },
  { name: 'fastify 5', entry: join(DIR, 'fastify.cjs'), services: [], answer: 'user 7 item 7' },
  { name: 'koa + @koa/router', entry: join(DIR, 'koa.cjs'), services: [], answer: 'user 7 item 7' },
  { name: 'nestjs on express', entry: join(DIR, 'nest.cjs'), services: [], answer: 'user 7 item 7' },
  { name: 'grpc-js client and server', entry: join(DIR, 'grpc.cjs'), services: [], answer: 'hello bundle' },
];

/** A second entry for code-splitting builds: it requires every library of the apps, so they land in shared chunks. */
export const SECOND_ENTRY = join(DIR, 'second-entry.cjs');

/** Optional packages NestJS loads only when present (not installed here): left external, as a Nest bundle does. */
export const OPTIONAL_EXTERNALS = ['class-validator', 'class-transformer', '@nestjs/microservices', '@nestjs/microservices/*', '@nestjs/websockets', '@nestjs/websockets/*'];

/** For ES-module output of CommonJS code: `require` for the bundled packages' own `require()` of Node.js built-ins. */
export const ESM_REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** A temp directory for build output, removed when the test ends. */
export function outDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-bundle-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The services the apps need, started on first use and stopped when the test file ends. Call it once, at the top
 * level of a test file (it registers that file's `after` hook).
 * @returns `servicesFor(app)`: the environment for `app` (`PG_PORT`, `REDIS_PORT`) as `{ env }`, or `{ skipped }` with the reason
 */
export function appServices() {
  const cleanups = [];
  const servers = new Map();
  const fileScope = { after: (fn) => cleanups.push(fn) };
  after(() => Promise.all(cleanups.map((fn) => fn())));
  return async function servicesFor(app) {
    const env = {};
    for (const name of app.services) {
      if (!servers.has(name)) servers.set(name, name === 'postgres' ? startPostgres(fileScope) : startRedis(fileScope));
      const server = await servers.get(name);
      if (server.skipped) return { skipped: server.skipped };
      env[name === 'postgres' ? 'PG_PORT' : 'REDIS_PORT'] = String(server.port);
    }
    return { env };
  };
}

/**
 * Runs `file` (an app or its bundle) to its end.
 * @param opts.preload - default `['--import', '@tracehook/register']`; `[]` runs it without the preload
 * @param opts.env - extra environment
 * @returns `{ code, stdout, stderr, spans }`
 */
export async function runApp(t, file, opts = {}) {
  const dir = spansDir(t);
  const result = await start(file, { preload: opts.preload, env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'app', ...opts.env }, timeoutMs: 30_000 }).done;
  return { ...result, spans: opts.preload?.length === 0 ? [] : await readSpans(dir) };
}

/** The attributes a signature keeps: the route, and what names a database call and an RPC. */
const KEPT = (key) => key === 'http.route' || key.startsWith('db.') || key.startsWith('rpc.');

/**
 * A span tree's signature, to compare an app's trace bundled and unbundled: one line per span, sorted, each giving
 * the names of its ancestors (root first), its own name and kind, and its `http.route`, `db.*` and `rpc.*`
 * attributes; ids and times left out, parent links kept as the path.
 * @param spans - decoded spans (test/helpers/fixture.mjs `readSpans`)
 * @returns the lines, sorted
 */
export function spanTreeSignature(spans) {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const path = (s) => {
    const names = [];
    for (let p = byId.get(s.parentSpanId); p !== undefined; p = byId.get(p.parentSpanId)) names.unshift(`${p.kind} ${p.name}`);
    return names;
  };
  return spans
    .map((s) => {
      const attributes = Object.keys(s.attributes)
        .filter(KEPT)
        .sort()
        .map((k) => `${k}=${JSON.stringify(s.attributes[k])}`);
      return [...path(s), `${s.kind} ${s.name}`].join(' > ') + (attributes.length ? ` {${attributes.join(' ')}}` : '');
    })
    .sort();
}

const unbundled = new Map();

/** The app's span tree signature unbundled (asserting it ran cleanly), once per app and test file. */
export async function unbundledSignature(t, app, env) {
  if (!unbundled.has(app.name)) {
    const run = await runApp(t, app.entry, { env });
    assert.equal(run.stderr, '');
    assert.equal(run.stdout.trim(), app.answer);
    unbundled.set(app.name, spanTreeSignature(run.spans));
  }
  return unbundled.get(app.name);
}

/**
 * Builds `app` with `build(dir)` (a temp directory; it returns the file to run), runs the bundle under the preload and
 * asserts it answers as the app does, with nothing on stderr and the span tree of the app unbundled.
 * @param servicesFor - what {@link appServices} returned
 */
export async function assertSameTree(t, app, servicesFor, build) {
  const { env, skipped } = await servicesFor(app);
  if (skipped) return t.skip(skipped);
  const expected = await unbundledSignature(t, app, env);
  assert.ok(expected.length >= 2, `unbundled spans: ${expected.join('\n')}`);
  const file = await build(outDir(t));
  const run = await runApp(t, file, { env });
  assert.equal(run.stderr, '', file);
  assert.equal(run.stdout.trim(), app.answer);
  assert.deepEqual(spanTreeSignature(run.spans), expected);
}
