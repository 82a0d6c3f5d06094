// ioredis (≥ 5.11) and mysql2 (≥ 3.20) publish TracingChannels: tracehook traces them from those, so the same
// CLIENT spans come from the app as installed and from the app bundled by esbuild (no plugin), under the SERVER span,
// once each. The patch-based instrumentations stay for the older releases only (test/unit/native-channels.test.mjs).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildSync } from 'esbuild';
import { startMariadb, startRedis } from './helpers/db-servers.mjs';
import { FIXTURES, get, readSpans, spansDir, start } from './helpers/fixture.mjs';

let started;
const cleanups = [];
after(() => Promise.all(cleanups.map((fn) => fn())));
before(async () => {
  const owner = { after: (fn) => cleanups.push(fn) };
  const [redis, mariadb] = await Promise.all([startRedis(owner), startMariadb(owner)]);
  const skipped = redis.skipped ?? mariadb.skipped;
  started = skipped ? { skipped } : { env: { REDIS_PORT: String(redis.port), MYSQL_PORT: String(mariadb.port) } };
});

async function request(t, file) {
  if (started.skipped) return t.skip(started.skipped);
  const dir = spansDir(t);
  const app = start(file, { env: { TRACEHOOK_SPANS_DIR: dir, ...started.env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  assert.equal((await get(port, '/work')).body, 'ok');
  app.kill();
  const { stderr } = await app.done;
  assert.equal(stderr, '');
  return readSpans(dir);
}

/** The CLIENT spans of the request: [name, db.operation.name or db.query.text] in start order. */
function checkRequest(spans) {
  const server = spans.find((s) => s.kind === 'SERVER');
  assert.ok(server, JSON.stringify(spans.map((s) => s.name)));
  const clients = spans.filter((s) => s.kind === 'CLIENT' && s.traceId === server.traceId).sort((a, b) => (a.startTime < b.startTime ? -1 : 1));
  for (const s of clients) assert.equal(s.parentSpanId, server.spanId, s.name);
  const redis = clients.filter((s) => s.attributes['db.system.name'] === 'redis');
  assert.deepEqual(
    redis.map((s) => [s.name, s.attributes['db.operation.name'], s.attributes['db.query.text']]),
    [
      ['set', 'set', 'set user:7 [1 other arguments]'],
      ['get', 'get', 'get user:7'],
      ['set', 'set', 'set p [1 other arguments]'],
      ['get', 'get', 'get p'],
      ['multi', 'multi', 'multi'],
      ['set', 'MULTI set', 'set m [1 other arguments]'],
      ['get', 'MULTI get', 'get m'],
      ['exec', 'exec', 'exec'],
      ['nosuchcmd', 'nosuchcmd', 'nosuchcmd [1 other arguments]'],
    ],
  );
  // The server's error, as instrumentation-ioredis records it: status and an exception event (the message masked).
  const failed = redis.at(-1);
  assert.deepEqual(failed.status, { code: 'ERROR', message: "ERR unknown command '?' " });
  assert.deepEqual(
    failed.events.map((e) => e.name),
    ['exception'],
  );
  for (const s of redis.slice(0, -1)) assert.equal(s.status.code, 'UNSET', s.name);
  for (const s of redis) {
    assert.equal(s.attributes['server.address'], '127.0.0.1');
    assert.equal(s.attributes['server.port'], Number(started.env.REDIS_PORT));
  }
  const mysql = clients.filter((s) => s.attributes['db.system.name'] === 'mysql');
  assert.deepEqual(
    mysql.map((s) => [s.name, s.attributes['db.query.text']]),
    [
      // mysql2 publishes the text with its values formatted in: masked, also a boolean's and a null's keyword.
      ['SELECT', 'SELECT ? AS v, ? AS flag, ? AS nothing'],
      ['SELECT', 'SELECT ? AS note, ? AS answer'],
      ['SELECT', 'SELECT ? + ? AS n'],
    ],
  );
  for (const s of mysql) {
    assert.deepEqual([s.attributes['db.namespace'], s.attributes['server.address'], s.attributes['server.port']], ['test', '127.0.0.1', Number(started.env.MYSQL_PORT)]);
    assert.equal(s.status.code, 'UNSET');
  }
  // Nothing else in the request, so no call has two spans; and no value reached a span.
  assert.equal(clients.length, redis.length + mysql.length, JSON.stringify(clients.map((s) => [s.name, s.instrumentationScope?.name])));
  assert.doesNotMatch(JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events.map((e) => e.attributes)])), /SECRET/);
  return clients;
}

test('ioredis and mysql2: CLIENT spans from their TracingChannels under the SERVER span, once each, values masked', async (t) => {
  const spans = await request(t, 'channels-app.cjs');
  if (spans) checkRequest(spans);
});

test('the same app bundled by esbuild (no plugin) gives the same ioredis and mysql2 spans', async (t) => {
  if (started.skipped) return t.skip(started.skipped);
  const out = mkdtempSync(join(tmpdir(), 'tracehook-channels-bundle-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  buildSync({ entryPoints: [join(FIXTURES, 'channels-app.cjs')], bundle: true, platform: 'node', outfile: join(out, 'app.cjs'), logLevel: 'silent' });
  const bundled = checkRequest(await request(t, join(out, 'app.cjs')));
  const installed = checkRequest(await request(t, 'channels-app.cjs'));
  const shape = (spans) => spans.map((s) => [s.name, s.kind, s.attributes['db.operation.name'], s.attributes['db.query.text']]);
  assert.deepEqual(shape(bundled), shape(installed));
});

// A copy of ioredis is patched by version: before 5.11 (no channels) instrumentation-ioredis wraps its sendCommand,
// from 5.11 on it does not (its channels trace it), when the patch loads lazily and when it loads at startup.
for (const [version, wrapped] of [
  ['5.10.0', true],
  ['5.11.0', false],
]) {
  for (const loader of ['lazy', 'TRACEHOOK_ESM_LOADER=true']) {
    test(`ioredis ${version} (${loader}): its sendCommand is ${wrapped ? '' : 'not '}patched`, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'tracehook-channels-gate-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const pkg = join(dir, 'node_modules', 'ioredis');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'ioredis', version, main: 'index.js' }));
      writeFileSync(join(pkg, 'index.js'), 'module.exports = class Redis { sendCommand() {} connect() {} };\n');
      writeFileSync(join(dir, 'app.cjs'), "process.stdout.write(String(require('ioredis').prototype.sendCommand.__wrapped === true));\n");
      const env = { TRACEHOOK_SPANS_DIR: spansDir(t), ...(loader === 'lazy' ? {} : { TRACEHOOK_ESM_LOADER: 'true' }) };
      const { code, stdout, stderr } = await start(join(dir, 'app.cjs'), { env }).done;
      assert.equal(code, 0, stderr);
      assert.equal(stdout, String(wrapped), stderr);
    });
  }
}

test("a startup hook's own instrumentation-ioredis and -mysql2 (NodeSDK, auto-instrumentations): tracehook's channel subscribers step aside, one span per call", async (t) => {
  if (started.skipped) return t.skip(started.skipped);
  const dir = spansDir(t);
  const hook = { TRACEHOOK_STARTUP_HOOK: '@tracehook/register/hooks/node-sdk:setupTracing', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'dns,net' };
  const app = start('channels-app.cjs', { env: { TRACEHOOK_SPANS_DIR: dir, ...hook, ...started.env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  assert.equal((await get(port, '/work')).body, 'ok');
  app.kill();
  assert.equal((await app.done).stderr, '');
  const spans = await readSpans(dir);
  const server = spans.find((s) => s.kind === 'SERVER');
  const clients = spans.filter((s) => s.kind === 'CLIENT' && s.traceId === server.traceId);
  const scopes = [...new Set(clients.map((s) => s.instrumentationScope?.name ?? s.scope?.name ?? s.scope))];
  assert.ok(!scopes.some((n) => String(n).startsWith('@tracehook/register/')), JSON.stringify(scopes));
  const redisSets = clients.filter((s) => s.name === 'set' && s.attributes['db.query.text'] === 'set user:7 [1 other arguments]');
  assert.equal(redisSets.length, 1, JSON.stringify(clients.map((s) => [s.name, s.attributes['db.query.text']])));
});

test('ioredis: a command queued while another request opens the connection is never parented to that request', async (t) => {
  if (started.skipped) return t.skip(started.skipped);
  const dir = spansDir(t);
  const app = start('channels-lazy-redis.cjs', { env: { TRACEHOOK_SPANS_DIR: dir, ...started.env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  // Sent together: the first opens the connection, the others' commands wait in the offline queue meanwhile.
  const keys = ['a', 'b', 'c'];
  await Promise.all(keys.map((key) => get(port, `/?item=${key}`)));
  app.kill();
  assert.equal((await app.done).stderr, '');
  const spans = await readSpans(dir);
  const servers = new Map(spans.filter((s) => s.kind === 'SERVER').map((s) => [s.attributes['url.query'], s]));
  assert.equal(servers.size, 3);
  for (const span of spans.filter((s) => s.attributes['db.system.name'] === 'redis')) {
    const key = /^get ([abc])$/.exec(span.attributes['db.query.text'])?.[1];
    if (key === undefined) continue;
    // Its own request's trace, or none: queued commands run in the connection's callback, which belongs to no request.
    assert.equal(span.traceId, servers.get(`item=${key}`).traceId, `get ${key} in another request's trace`);
  }
  // Commands issued once the connection is ready are in their request's trace, under its SERVER span.
  const after = spans.filter((s) => s.attributes['db.query.text'] === 'get after');
  assert.equal(after.length, 3);
  for (const span of after) assert.ok([...servers.values()].some((s) => s.spanId === span.parentSpanId && s.traceId === span.traceId));
});
