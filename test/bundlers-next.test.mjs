// A Next.js 16 app built with `output: 'standalone'` (issue 31, item 3) and run as a user would:
// `node --import @tracehook/register .next/standalone/server.js`. Next.js makes its own spans through
// @opentelemetry/api and keeps `pg` external (its serverExternalPackages list), so the preload's pg patch applies;
// ioredis, which Next.js would bundle, is kept external by `withTracehook` (@tracehook/register/next) in next.config.
// The SERVER span the preload makes is named by the Next.js route, and stderr stays empty.
// The app (test/fixtures/next-app) is built once, with Next.js's default bundler (Turbopack), in a copy under
// the repository's ignored tmp/ (Turbopack resolves `next` only inside the workspace root, the nearest lockfile).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { freePort, startPostgres, startRedis } from './helpers/db-servers.mjs';
import { FIXTURES, ROOT, get, makeTraceparent, readSpans, spansDir, start } from './helpers/fixture.mjs';

let app;
let buildError;

before(async () => {
  mkdirSync(join(ROOT, 'tmp'), { recursive: true });
  app = mkdtempSync(join(ROOT, 'tmp', 'next-app-'));
  cpSync(join(FIXTURES, 'next-app'), app, { recursive: true });
  // next.config.mjs imports @tracehook/register/next as an app that installed it would.
  mkdirSync(join(app, 'node_modules', '@tracehook'), { recursive: true });
  symlinkSync(ROOT, join(app, 'node_modules', '@tracehook', 'register'), 'dir');
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
      cwd: app,
      env: { ...process.env, NODE_OPTIONS: undefined, NEXT_TELEMETRY_DISABLED: '1' },
      timeout: 300_000,
    });
  } catch (error) {
    buildError = error;
  }
});

after(() => rmSync(app, { recursive: true, force: true }));

/** The standalone server's directory: the build nests the app under its path from the workspace root. */
const serverDir = () => join(app, '.next', 'standalone', relative(ROOT, app));

for (const mode of ['fast', 'stock']) {
  test(`next build (standalone) under the preload, ${mode}: the SERVER span is named by the route, pg and ioredis spans below it, nothing on stderr`, async (t) => {
    assert.equal(buildError, undefined, `next build failed: ${buildError?.stderr ?? buildError}`);
    const pg = await startPostgres(t);
    if (pg.skipped) return t.skip(pg.skipped);
    const redis = await startRedis(t);
    if (redis.skipped) return t.skip(redis.skipped);
    const dir = spansDir(t);
    const port = await freePort();
    const server = start(join(serverDir(), 'server.js'), {
      preload: ['--import', join(ROOT, 'register.mjs')],
      cwd: serverDir(),
      env: {
        PORT: String(port),
        HOSTNAME: '127.0.0.1',
        PGPORT: String(pg.port),
        REDIS_PORT: String(redis.port),
        TRACEHOOK_SPANS_DIR: dir,
        TRACEHOOK_HTTP_INSTRUMENTATION: mode,
        NEXT_TELEMETRY_DISABLED: '1',
      },
    });
    t.after(() => server.kill('SIGKILL'));
    await server.ready(/Ready in/);
    const incoming = makeTraceparent();
    assert.equal((await get(port, '/api/users/42', { traceparent: incoming.traceparent })).body, '{"user":42,"cached":"42"}');
    server.kill();
    const { stderr } = await server.done;
    assert.equal(stderr, '');

    const spans = (await readSpans(dir)).filter((s) => s.traceId === incoming.traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const outer = spans.find((s) => s.parentSpanId === incoming.spanId);
    assert.equal(outer?.kind, 'SERVER', JSON.stringify(spans.map((s) => s.name)));
    assert.equal(outer.name, 'GET /api/users/[id]');
    assert.equal(outer.attributes['http.route'], '/api/users/[id]');
    assert.equal(outer.attributes['url.path'] ?? outer.attributes['http.target'], '/api/users/42');
    const query = spans.find((s) => s.kind === 'CLIENT' && s.attributes['db.query.text'] === 'SELECT $1::int AS id');
    assert.ok(query, 'a pg query span');
    assert.equal(query.attributes['db.system.name'] ?? query.attributes['db.system'], 'postgresql');
    const ancestors = (span) => {
      const chain = [];
      for (let s = span; s; s = byId.get(s.parentSpanId)) chain.push(s);
      return chain;
    };
    assert.equal(ancestors(query).at(-1), outer, 'the pg span descends from the SERVER span');
    const redisGet = spans.find((s) => s.kind === 'CLIENT' && s.attributes['db.system.name'] === 'redis' && s.attributes['db.query.text'] === 'get user');
    assert.ok(redisGet, 'an ioredis span');
    assert.equal(ancestors(redisGet).at(-1), outer, 'the ioredis span descends from the SERVER span');
    // Next.js's own SERVER span, in between, carries the route too.
    assert.ok(ancestors(query).some((s) => s !== outer && s.kind === 'SERVER' && s.name === 'GET /api/users/[id]'));
  });
}
