// Routes in SERVER span names: `METHOD route` with `http.route` for Express, Fastify, Koa with
// @koa/router and NestJS on Express, in the default fast mode and with the stock instrumentation-http; plain node:http keeps
// the method. A request that calls another service with fetch gives one trace across both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, makeTraceparent, readSpans, spansDir, start } from './helpers/fixture.mjs';
import { routeApps } from './helpers/route-apps.mjs';

async function run(t, fixture, env, preload, cwd) {
  const dir = spansDir(t);
  const app = start(fixture, { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'app', ...env }, preload, cwd });
  const callee = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'callee' } });
  t.after(() => {
    app.kill('SIGKILL');
    callee.kill('SIGKILL');
  });
  const [[, port], [, calleePort]] = await Promise.all([app.ready(), callee.ready()]);
  const incoming = makeTraceparent();
  assert.equal((await get(port, '/users/42')).body, 'user 42');
  assert.equal((await get(port, '/api/items/7')).body, 'item 7');
  assert.equal((await get(port, '/nothing/here')).status, 404);
  assert.equal((await get(port, `/call/${calleePort}`, { traceparent: incoming.traceparent })).body, 'ok');
  app.kill();
  callee.kill();
  const [a, b] = await Promise.all([app.done, callee.done]);
  assert.equal(a.stderr + b.stderr, '');
  const spans = await readSpans(dir);
  const servers = spans.filter((s) => s.kind === 'SERVER' && s.resource['service.name'] === 'app');
  const byPath = (path) => servers.find((s) => s.attributes['url.path'] === path);
  return { spans, servers, byPath, incoming, calleePort };
}

const APPS = routeApps();

for (const mode of ['fast', 'stock']) {
  for (const [name, fixture, env, preload, cwd] of APPS) {
    test(`${name}, ${mode}: SERVER spans named METHOD route with http.route; the fetch CLIENT span parents the callee's SERVER span`, async (t) => {
      const r = await run(t, fixture, { ...env, TRACEHOOK_HTTP_INSTRUMENTATION: mode }, preload, cwd);
      assert.equal(r.servers.length, 4, JSON.stringify(r.servers.map((s) => s.name)));
      for (const [path, route] of [
        ['/users/42', '/users/:id'],
        ['/api/items/7', '/api/items/:item'],
        [`/call/${r.calleePort}`, '/call/:port'],
      ]) {
        const span = r.byPath(path);
        assert.equal(span?.name, `GET ${route}`, path);
        assert.equal(span.attributes['http.route'], route);
      }
      const notFound = r.byPath('/nothing/here');
      assert.equal(notFound.name, 'GET');
      assert.equal(notFound.attributes['http.route'], undefined);

      const trace = r.spans.filter((s) => s.traceId === r.incoming.traceId);
      const server = trace.find((s) => s.kind === 'SERVER' && s.resource['service.name'] === 'app');
      const client = trace.find((s) => s.kind === 'CLIENT' && s.resource['service.name'] === 'app');
      const callee = trace.find((s) => s.kind === 'SERVER' && s.resource['service.name'] === 'callee');
      assert.equal(server.parentSpanId, r.incoming.spanId);
      assert.equal(client.parentSpanId, server.spanId);
      assert.equal(callee.parentSpanId, client.spanId);
    });
  }
}

test('express with its full instrumentation enabled: the fast SERVER span takes the route from the RPC metadata it sets', async (t) => {
  const r = await run(t, 'routes-app.cjs', { FRAMEWORK: 'express', OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,undici,express' }, ['--require', '@tracehook/register']);
  const span = r.byPath('/users/42');
  assert.equal(span.name, 'GET /users/:id');
  const handlers = r.spans.filter((s) => s.traceId === span.traceId && s.attributes['express.type'] === 'request_handler');
  assert.ok(handlers.length > 0, 'instrumentation-express made its spans');
  assert.ok(handlers.every((h) => h.parentSpanId === span.spanId));
});

// Issue 29 item 8: Express keeps a mount's actual path in req.baseUrl, so a route built from it under
// app.use('/users/:id', router) was the caller's text (9 067 characters, one name per request).
for (const mode of ['fast', 'stock']) {
  for (const [name, fixture, env, preload, cwd] of APPS.filter(([n]) => n === 'express' || n === 'express 4')) {
    test(`${name}, ${mode}: no route from a mount's actual path (parameterised mount, other letter case); a route is cut like url.path`, async (t) => {
      const dir = spansDir(t);
      const app = start(fixture, { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: mode, ...env }, preload, cwd });
      t.after(() => app.kill('SIGKILL'));
      const [, port] = await app.ready();
      const id = 'a'.repeat(9000);
      assert.equal((await get(port, `/people/${id}/posts/7`)).body, 'post 7');
      assert.equal((await get(port, '/API/items/7')).body, 'item 7');
      assert.equal((await get(port, '/api/items/8')).body, 'item 8');
      assert.equal((await get(port, `/long/${'x'.repeat(3000)}`)).body, 'long');
      app.kill();
      await app.done;
      const servers = (await readSpans(dir)).filter((s) => s.kind === 'SERVER');
      const byPath = (prefix) => servers.find((s) => s.attributes['url.path'].startsWith(prefix));
      for (const span of [byPath('/people/'), byPath('/API/')]) {
        assert.equal(span.name, 'GET');
        assert.equal(span.attributes['http.route'], undefined);
      }
      assert.equal(byPath('/people/').attributes['url.path'].length, 2048);
      assert.equal(byPath('/api/').name, 'GET /api/items/:item');
      const long = byPath('/long/');
      assert.equal(long.attributes['http.route'], `/long/${'x'.repeat(3000)}`.slice(0, 2048));
      assert.equal(long.name, `GET ${long.attributes['http.route']}`);
    });
  }
}
