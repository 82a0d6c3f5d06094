// Every instrumentation of auto-instrumentations-node (but a few, see README) on by default, each loaded only
// when the app loads its target module: a request through real PostgreSQL and Redis servers shows their
// CLIENT spans under the SERVER span, for ESM and CommonJS apps; the enabled/disabled variables narrow the set.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { render, targets } from '../scripts/instrumentation-targets.mjs';
import { startPostgres, startRedis } from './helpers/db-servers.mjs';
import { get, readSpans, ROOT, run, spansDir, start } from './helpers/fixture.mjs';
import { DEFAULT_INSTRUMENTATIONS, OFF_BY_DEFAULT } from '../dist/config/instrumentation-defaults.js';

const dbSystem = (s) => s.attributes['db.system'] ?? s.attributes['db.system.name'];
const statement = (s) => s.attributes['db.statement'] ?? s.attributes['db.query.text'];

// One PostgreSQL and one Redis server for the whole file (initdb alone takes seconds).
let started;
const cleanups = [];
after(() => Promise.all(cleanups.map((fn) => fn())));
before(async () => {
  const owner = { after: (fn) => cleanups.push(fn) };
  const [pgServer, redisServer] = await Promise.all([startPostgres(owner), startRedis(owner)]);
  const skipped = pgServer.skipped ?? redisServer.skipped;
  started = skipped ? { skipped } : { env: { PG_PORT: String(pgServer.port), REDIS_PORT: String(redisServer.port) } };
});

function servers(t) {
  if (started.skipped) t.skip(started.skipped);
  return started.env;
}

async function request(t, fixture, preload, env) {
  const dir = spansDir(t);
  const app = start(fixture, { preload, env: { TRACEHOOK_SPANS_DIR: dir, ...env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  assert.equal((await get(port, '/users/7')).body, 'user 7 cached');
  app.kill();
  const { stderr } = await app.done;
  assert.equal(stderr, '');
  return readSpans(dir);
}

for (const [fixture, preload, route] of [
  ['db-app.mjs', ['--import', '@tracehook/register'], 'GET /users/:id'],
  ['db-app.cjs', ['--require', '@tracehook/register'], 'GET'],
]) {
  test(`${fixture}: PostgreSQL and Redis CLIENT spans with db.* attributes under the SERVER span, by default`, async (t) => {
    const env = servers(t);
    if (!env) return;
    const spans = await request(t, fixture, preload, env);
    const server = spans.find((s) => s.kind === 'SERVER');
    assert.equal(server.name, route);
    const inTrace = spans.filter((s) => s.traceId === server.traceId);
    const pgQueries = inTrace.filter((s) => s.kind === 'CLIENT' && dbSystem(s) === 'postgresql' && /SELECT/.test(statement(s) ?? ''));
    assert.deepEqual(pgQueries.map(statement).sort(), ['SELECT $1::int AS id', 'SELECT ? AS note, ? AS answer'], JSON.stringify(spans.map((s) => [s.name, s.kind, s.attributes])));
    // The literals of the second query reach no span, under any attribute.
    assert.doesNotMatch(JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events.map((e) => e.attributes)])), /SECRET-literal/);
    // The app's own commands are set and get. Its client connects lazily: `set` opens the connection and waits in
    // ioredis's offline queue, which ioredis (≥ 5.11, traced from its channels) publishes from the connection's own
    // callback, where no request's context is: no span rather than one under whichever request opened the connection
    // (docs/channels.md). `get`, sent once connected, is in the trace.
    const redisSpans = inTrace.filter((s) => s.kind === 'CLIENT' && dbSystem(s) === 'redis' && ['set', 'get'].includes(s.name));
    assert.deepEqual([...new Set(redisSpans.map((s) => s.name))].sort(), ['get'], JSON.stringify(redisSpans.map((s) => s.attributes)));
    assert.equal(spans.filter((s) => s.name === 'set').length, 0, 'the queued set is in no trace');
    const redisGet = redisSpans.find((s) => s.name === 'get');
    assert.equal(statement(redisGet), 'get user:7');
    assert.equal(redisGet.attributes['server.port'] ?? redisGet.attributes['net.peer.port'], Number(env.REDIS_PORT));
    // Each DB span descends from the SERVER span (pg may put its query under a pool-connect span).
    const byId = new Map(inTrace.map((s) => [s.spanId, s]));
    for (const span of [...pgQueries, ...redisSpans]) {
      let p = byId.get(span.parentSpanId);
      while (p && p !== server) p = byId.get(p.parentSpanId);
      assert.equal(p, server, `${span.name} descends from the SERVER span`);
    }
  });
}

test('mysql2: query text with its literals and comments masked, span names without them, parameter values never in it (a port where no server listens: the span is made before the refusal)', async (t) => {
  const port = await new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const free = probe.address().port;
      probe.close(() => resolve(free));
    });
  });
  const dir = spansDir(t);
  const { code, stdout, stderr } = await run('mysql2-app.cjs', { args: [String(port)], env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'done\n');
  const spans = await readSpans(dir);
  const queries = spans.filter((s) => s.kind === 'CLIENT' && dbSystem(s) === 'mysql').map(statement);
  assert.deepEqual(queries, ['SELECT id FROM users WHERE email = ? AND password_hash = ?', 'UPDATE users SET api_token = ? WHERE id = ?', 'SELECT\n? AS x', '/* ? */ SELECT ?']);
  assert.deepEqual(
    spans.filter((s) => s.kind === 'CLIENT' && dbSystem(s) === 'mysql').map((s) => s.name),
    ['SELECT', 'UPDATE', 'SELECT', 'SELECT'],
  );
  assert.doesNotMatch(JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events.map((e) => e.attributes)])), /SECRET|alice@/);
});

test('OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg: Redis spans, no PostgreSQL spans; OTEL_NODE_ENABLED_INSTRUMENTATIONS=http,pg: the reverse', async (t) => {
  const env = servers(t);
  if (!env) return;
  const preload = ['--import', '@tracehook/register'];
  const withoutPg = await request(t, 'db-app.mjs', preload, { ...env, OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' });
  assert.ok(withoutPg.some((s) => dbSystem(s) === 'redis'));
  assert.ok(!withoutPg.some((s) => dbSystem(s) === 'postgresql'));
  const onlyPg = await request(t, 'db-app.mjs', preload, { ...env, OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,pg' });
  assert.ok(onlyPg.some((s) => dbSystem(s) === 'postgresql'));
  assert.ok(!onlyPg.some((s) => dbSystem(s) === 'redis'));
});

test('an app that loads none of their modules requires no instrumentation package (http, grpc and undici are bundled)', async (t) => {
  const dir = spansDir(t);
  const code = 'console.log(Object.keys(require.cache).filter((f) => /node_modules.@opentelemetry.instrumentation-/.test(f)).length)';
  const { stdout, stderr } = await start(null, { command: ['--require', '@tracehook/register', '-e', code], env: { TRACEHOOK_SPANS_DIR: dir } }).done;
  assert.equal(stderr, '');
  assert.equal(stdout.trim(), '0');
});

test('src/instrumentations/targets.ts is current, and each instrumentation of auto-instrumentations-node is on by default or listed as off with a reason', () => {
  const table = targets();
  assert.equal(readFileSync(`${ROOT}/src/instrumentations/targets.ts`, 'utf8'), render(table), 'run node scripts/instrumentation-targets.mjs');
  for (const name of Object.keys(table)) {
    assert.ok(DEFAULT_INSTRUMENTATIONS.includes(name) !== Object.hasOwn(OFF_BY_DEFAULT, name), name);
  }
});
