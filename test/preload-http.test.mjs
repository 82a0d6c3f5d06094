// The main job: unchanged HTTP and gRPC services under `node --import @tracehook/register`
// (and `--require`) give connected traces, read back from the span files.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { get, makeTraceparent, readSpans, spansDir, start } from './helpers/fixture.mjs';

async function startBoth(t, preload, httpInstrumentation) {
  const dir = spansDir(t);
  const env = { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: httpInstrumentation };
  const esm = start('http-app.mjs', { env: { ...env, OTEL_SERVICE_NAME: 'esm-app' }, preload });
  const cjs = start('grpc-app.cjs', { env: { ...env, OTEL_SERVICE_NAME: 'cjs-app' }, preload });
  const [[, esmPort], [, cjsPort, grpcPort]] = await Promise.all([esm.ready(), cjs.ready(/listening (\d+) grpc (\d+)/)]);
  const stop = async () => {
    esm.kill();
    cjs.kill();
    await Promise.all([esm.done, cjs.done]);
    return readSpans(dir);
  };
  t.after(() => {
    esm.kill('SIGKILL');
    cjs.kill('SIGKILL');
  });
  return { esmPort, cjsPort, grpcPort, stop };
}

const byService = (spans, name) => spans.filter((s) => s.resource['service.name'] === name);

// Every case runs over both HTTP server instrumentations: tracehook's fast one and the stock one.
for (const [form, preload, http] of [
  ['--import', ['--import', '@tracehook/register'], 'fast'],
  ['--require', ['--require', '@tracehook/register'], 'fast'],
  ['--import', ['--import', '@tracehook/register'], 'stock'],
  ['--require', ['--require', '@tracehook/register'], 'stock'],
]) {
  test(`${form}, ${http} HTTP server spans: an incoming traceparent is continued and tracestate kept (ESM and CJS apps)`, async (t) => {
    const apps = await startBoth(t, preload, http);
    const esmIn = makeTraceparent();
    const cjsIn = makeTraceparent();
    assert.equal((await get(apps.esmPort, '/', { traceparent: esmIn.traceparent, tracestate: 'vendor=a1,other=b2' })).body, 'ok');
    assert.equal((await get(apps.cjsPort, '/', { traceparent: cjsIn.traceparent, tracestate: 'vendor=c3' })).body, 'ok');
    const spans = await apps.stop();
    for (const [service, incoming, state] of [
      ['esm-app', esmIn, 'vendor=a1,other=b2'],
      ['cjs-app', cjsIn, 'vendor=c3'],
    ]) {
      const server = byService(spans, service).find((s) => s.kind === 'SERVER');
      assert.ok(server, `${service} wrote a SERVER span`);
      assert.equal(server.traceId, incoming.traceId);
      assert.equal(server.parentSpanId, incoming.spanId);
      assert.equal(server.traceState, state);
      assert.equal(server.attributes['http.request.method'], 'GET');
      assert.equal(server.attributes['http.response.status_code'], 200);
      assert.equal(server.attributes['url.path'], '/');
      assert.equal(server.attributes['server.port'], Number(service === 'esm-app' ? apps.esmPort : apps.cjsPort));
      assert.equal(server.attributes['client.address'], '127.0.0.1');
      assert.equal(server.resource['process.pid'] > 0, true);
    }
  });

  test(`${form}, ${http} HTTP server spans: HTTP and gRPC CLIENT spans parent the downstream SERVER spans across processes`, async (t) => {
    const apps = await startBoth(t, preload, http);
    const incoming = makeTraceparent();
    const headers = { traceparent: incoming.traceparent, tracestate: 'vendor=z9' };
    assert.equal((await get(apps.esmPort, `/call?port=${apps.cjsPort}`, headers)).body, 'ok');
    assert.equal((await get(apps.esmPort, `/grpc?port=${apps.grpcPort}`, headers)).body, 'hello fixture');
    const spans = (await apps.stop()).filter((s) => s.traceId === incoming.traceId);
    const esm = byService(spans, 'esm-app');
    const cjs = byService(spans, 'cjs-app');

    const httpClient = esm.find((s) => s.kind === 'CLIENT' && s.attributes['http.request.method'] === 'GET');
    const httpServer = cjs.find((s) => s.kind === 'SERVER' && s.attributes['http.request.method'] === 'GET');
    assert.ok(httpClient && httpServer, 'HTTP client and server spans');
    assert.equal(httpServer.parentSpanId, httpClient.spanId);
    assert.equal(httpServer.traceState, 'vendor=z9');
    assert.equal(httpClient.attributes['server.port'], Number(apps.cjsPort));

    const grpcClient = esm.find((s) => s.kind === 'CLIENT' && s.attributes['rpc.system'] === 'grpc');
    const grpcServer = cjs.find((s) => s.kind === 'SERVER' && s.attributes['rpc.system'] === 'grpc');
    assert.ok(grpcClient && grpcServer, 'gRPC client and server spans');
    assert.equal(grpcClient.name, 'grpc.greeter.Greeter/SayHello');
    assert.equal(grpcServer.parentSpanId, grpcClient.spanId);
    assert.equal(grpcClient.attributes['rpc.method'], 'SayHello');

    // Each CLIENT span is a child of the ESM app's SERVER span for its request.
    const esmServers = esm.filter((s) => s.kind === 'SERVER');
    assert.equal(esmServers.length, 2);
    for (const client of [httpClient, grpcClient]) {
      assert.ok(esmServers.some((s) => s.spanId === client.parentSpanId && s.parentSpanId === incoming.spanId));
    }
  });
}

for (const http of ['fast', 'stock']) {
  test(`${http} HTTP server spans: a 5xx answer is status ERROR; concurrent requests never share a parent`, async (t) => {
    const apps = await startBoth(t, ['--import', '@tracehook/register'], http);
    const closedPort = 1; // nothing listens on port 1: the downstream call fails and the app answers 500
    assert.equal((await get(apps.esmPort, `/call?port=${closedPort}`)).status, 500);
    const calls = Array.from({ length: 20 }, () => get(apps.esmPort, `/call?port=${apps.cjsPort}`));
    assert.ok((await Promise.all(calls)).every((r) => r.body === 'ok'));
    const spans = byService(await apps.stop(), 'esm-app');
    const failed = spans.find((s) => s.kind === 'SERVER' && s.attributes['http.response.status_code'] === 500);
    assert.equal(failed.status.code, 'ERROR');
    const servers = spans.filter((s) => s.kind === 'SERVER' && s.attributes['http.response.status_code'] === 200);
    const clients = spans.filter((s) => s.kind === 'CLIENT' && s.attributes['server.port'] === Number(apps.cjsPort));
    assert.equal(servers.length, 20);
    assert.equal(clients.length, 20);
    // Each CLIENT span has its own request's SERVER span as parent, in that request's trace.
    assert.equal(new Set(clients.map((c) => c.parentSpanId)).size, 20);
    for (const c of clients) assert.equal(servers.find((s) => s.spanId === c.parentSpanId)?.traceId, c.traceId);
  });
}

test("fast HTTP server spans: x-request-id becomes tracehook.request.id on the request's spans; runtime context stamped", async (t) => {
  const apps = await startBoth(t, ['--import', '@tracehook/register'], 'fast');
  assert.equal((await get(apps.esmPort, `/call?port=${apps.cjsPort}`, { 'x-request-id': 'req-42' })).body, 'ok');
  const spans = byService(await apps.stop(), 'esm-app');
  const server = spans.find((s) => s.kind === 'SERVER');
  const client = spans.find((s) => s.kind === 'CLIENT');
  for (const span of [server, client]) {
    assert.equal(span.attributes['tracehook.request.id'], 'req-42');
    assert.equal(span.attributes['process.pid'], span.resource['process.pid']);
    assert.equal(span.attributes['thread.id'], 0);
  }
});

for (const loader of ['auto', 'true']) {
  test(`an ES module's default import of @grpc/grpc-js is instrumented (TRACEHOOK_ESM_LOADER=${loader})`, async (t) => {
    const apps = await startBoth(t, ['--import', '@tracehook/register'], 'fast');
    const dir = spansDir(t);
    const result = await start('grpc-esm-client.mjs', { args: [apps.grpcPort], env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_ESM_LOADER: loader } }).done;
    assert.equal(result.stdout.trim(), 'hello a hello b', result.stderr);
    const clients = (await readSpans(dir)).filter((s) => s.kind === 'CLIENT');
    const servers = byService(await apps.stop(), 'cjs-app').filter((s) => s.kind === 'SERVER' && s.attributes['rpc.system'] === 'grpc');
    assert.equal(clients.length, 2);
    assert.deepEqual(servers.map((s) => s.parentSpanId).sort(), clients.map((c) => c.spanId).sort());
  });
}

// node:http is patched as the app's import loads it (not at startup), also through import-in-the-middle's wrapper module.
for (const loader of ['false', 'true']) {
  test(`an ES module's named imports of node:http are instrumented (TRACEHOOK_ESM_LOADER=${loader})`, async (t) => {
    const dir = spansDir(t);
    const app = start('http-named-imports.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_ESM_LOADER: loader } });
    assert.equal((await app.done).code, 0, app.stderr);
    const spans = await readSpans(dir);
    const client = spans.find((s) => s.kind === 'CLIENT');
    const server = spans.find((s) => s.kind === 'SERVER');
    assert.ok(client && server, 'both spans');
    assert.equal(server.parentSpanId, client.spanId);
  });
}

/** POST of `bytes` bytes; with `lateMs`, the headers go first and the body that long after. @returns the answer's body */
function post(port, bytes, lateMs = 0) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': bytes } }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (d) => (body += d))
        .on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.flushHeaders();
    setTimeout(() => req.end(Buffer.alloc(bytes, 'x')), lateMs);
  });
}

// Issue 29 item 7: with a body, 'end' is emitted where the socket's data arrived, outside the request's trace.
for (const http of ['fast', 'stock']) {
  test(`${http} HTTP server spans: spans started in the request's 'end' and the response's 'finish' listeners stay in the request's trace (no body, 10 B, 200 KB, sent late)`, async (t) => {
    const dir = spansDir(t);
    const app = start('http-body-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: http } });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    const cases = [[0], [10], [200 * 1024], [10, 200]];
    for (const [bytes, lateMs] of cases) assert.equal(await post(port, bytes, lateMs), String(bytes));
    app.kill();
    await app.done;
    const spans = await readSpans(dir);
    const servers = spans.filter((s) => s.kind === 'SERVER');
    assert.equal(servers.length, cases.length);
    for (const name of ['in end', 'in finish']) {
      const inner = spans.filter((s) => s.name === name);
      assert.equal(inner.length, cases.length, name);
      // Each one is a child of its own request's SERVER span.
      assert.deepEqual(inner.map((s) => s.parentSpanId).sort(), servers.map((s) => s.spanId).sort(), `${name}: parents`);
      for (const s of inner) assert.equal(servers.find((server) => server.spanId === s.parentSpanId).traceId, s.traceId);
    }
  });
}

/** Polls the span files of `dir` for the SERVER span of `traceId` for up to `ms`; the spans found, or undefined. */
async function waitForServerSpan(dir, traceId, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const found = (await readSpans(dir)).find((s) => s.traceId === traceId && s.kind === 'SERVER');
      if (found) return found;
    } catch {
      // No span file yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

// Issue 33: span files are written within ≈ 0.5 s of a span's end by default (OTLP keeps the SDK's 5 s), and
// OTEL_BSP_SCHEDULE_DELAY set by the user still wins.
test('span files: a request is in the span file well before the SDK default of 5 s, the server still running; OTEL_BSP_SCHEDULE_DELAY still wins', async (t) => {
  const dir = spansDir(t);
  const slowDir = spansDir(t);
  // The default schedule, whatever the environment running the tests says.
  const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_BSP_SCHEDULE_DELAY: undefined } });
  const slow = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: slowDir, OTEL_BSP_SCHEDULE_DELAY: '60000' } });
  t.after(() => {
    app.kill('SIGKILL');
    slow.kill('SIGKILL');
  });
  const [[, port], [, slowPort]] = await Promise.all([app.ready(), slow.ready()]);
  const incoming = makeTraceparent();
  const slowIncoming = makeTraceparent();
  assert.equal((await get(port, '/', { traceparent: incoming.traceparent })).body, 'ok');
  assert.equal((await get(slowPort, '/', { traceparent: slowIncoming.traceparent })).body, 'ok');
  // A generous bound that still tells the new default (500 ms) from the old one (5 s) on a loaded machine.
  assert.ok(await waitForServerSpan(dir, incoming.traceId, 3000), 'the span is not in the span file 3 s after the request');
  assert.equal(await waitForServerSpan(slowDir, slowIncoming.traceId, 500), undefined, 'OTEL_BSP_SCHEDULE_DELAY=60000 is not followed');
  slow.kill();
  await slow.done;
  assert.ok(await waitForServerSpan(slowDir, slowIncoming.traceId, 100), 'the span is written at exit');
});
