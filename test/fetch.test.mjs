// fetch is traced by default: global fetch and undici's own API make CLIENT spans with the HTTP client
// semantic conventions and send traceparent/tracestate, so the called service continues the trace.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, makeTraceparent, readSpans, spansDir, start } from './helpers/fixture.mjs';

async function startPair(t, env = {}) {
  const dir = spansDir(t);
  const caller = start('fetch-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'caller', ...env } });
  const callee = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'callee' } });
  t.after(() => {
    caller.kill('SIGKILL');
    callee.kill('SIGKILL');
  });
  const [[, callerPort], [, calleePort]] = await Promise.all([caller.ready(), callee.ready()]);
  const stop = async () => {
    caller.kill();
    callee.kill();
    const [a, b] = await Promise.all([caller.done, callee.done]);
    assert.equal(a.stderr + b.stderr, '');
    return readSpans(dir);
  };
  return { callerPort, calleePort, stop };
}

for (const path of ['/fetch', '/undici']) {
  test(`${path}: a CLIENT span under the SERVER span, parent of the called service's SERVER span, tracestate kept`, async (t) => {
    const apps = await startPair(t);
    const incoming = makeTraceparent();
    const res = await get(apps.callerPort, `${path}?port=${apps.calleePort}`, { traceparent: incoming.traceparent, tracestate: 'vendor=f1' });
    assert.equal(res.body, 'ok');
    const spans = (await apps.stop()).filter((s) => s.traceId === incoming.traceId);
    const server = spans.find((s) => s.kind === 'SERVER' && s.resource['service.name'] === 'caller');
    const client = spans.find((s) => s.kind === 'CLIENT' && s.resource['service.name'] === 'caller');
    const downstream = spans.find((s) => s.kind === 'SERVER' && s.resource['service.name'] === 'callee');
    assert.ok(server && client && downstream, JSON.stringify(spans.map((s) => [s.name, s.kind])));
    assert.equal(server.parentSpanId, incoming.spanId);
    assert.equal(client.parentSpanId, server.spanId);
    assert.equal(downstream.parentSpanId, client.spanId);
    assert.equal(downstream.traceState, 'vendor=f1');
    assert.equal(client.name, 'GET');
    assert.equal(client.attributes['http.request.method'], 'GET');
    assert.equal(client.attributes['url.full'], `http://127.0.0.1:${apps.calleePort}/`);
    assert.equal(client.attributes['server.address'], '127.0.0.1');
    assert.equal(client.attributes['server.port'], Number(apps.calleePort));
    assert.equal(client.attributes['http.response.status_code'], 200);
  });
}

for (const path of ['/fetch', '/undici']) {
  test(`${path}: sensitive query values are REDACTED in the CLIENT span's url.full and url.query, the rest kept`, async (t) => {
    const apps = await startPair(t);
    const query = '?api_key=SECRET-k1&x=2&sig=SECRET-s3&q=a%20b&access_token=SECRET-t0';
    const res = await get(apps.callerPort, `${path}?port=${apps.calleePort}&forward=${encodeURIComponent(query)}`);
    assert.equal(res.body, 'ok');
    const spans = await apps.stop();
    const client = spans.find((s) => s.kind === 'CLIENT');
    assert.ok(client, JSON.stringify(spans.map((s) => [s.name, s.kind])));
    const redacted = '?api_key=REDACTED&x=2&sig=REDACTED&q=a%20b&access_token=REDACTED';
    assert.equal(client.attributes['url.full'], `http://127.0.0.1:${apps.calleePort}/${redacted}`);
    assert.equal(client.attributes['url.query'], redacted);
    // Nor in the called service's SERVER span (the caller's own carries the test's `forward` parameter as sent).
    const called = spans.filter((s) => !(s.kind === 'SERVER' && s.attributes['url.path'] === path));
    assert.doesNotMatch(JSON.stringify(called.map((s) => s.attributes)), /SECRET/);
  });
}

// Issue 29 item 5: names were matched as spelled in the list, so these kept their values.
const SPELLINGS = ['Token', 'TOKEN', 'x-amz-signature', 'token[]', 'api-key', 'apiKey', 'jwt', 'user[password]', '%54oken'];
for (const path of ['/fetch', '/undici']) {
  test(`${path}: every spelling of a listed name (Token, TOKEN, x-amz-signature, token[], api-key, apiKey, jwt) is REDACTED in the CLIENT span's url.full and url.query`, async (t) => {
    const apps = await startPair(t);
    const query = `?${SPELLINGS.map((name, i) => `${name}=sp3lled${i}`).join('&')}&keep=1&tokens=kept`;
    assert.equal((await get(apps.callerPort, `${path}?port=${apps.calleePort}&forward=${encodeURIComponent(query)}`)).body, 'ok');
    const client = (await apps.stop()).find((s) => s.kind === 'CLIENT');
    const redacted = query.replace(/=sp3lled\d+/g, '=REDACTED');
    assert.equal(client.attributes['url.query'], redacted);
    assert.equal(client.attributes['url.full'], `http://127.0.0.1:${apps.calleePort}/${redacted}`);
  });
}

test('OTEL_NODE_DISABLED_INSTRUMENTATIONS=undici: fetch makes no CLIENT span and the called service starts its own trace', async (t) => {
  const apps = await startPair(t, { OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'undici' });
  assert.equal((await get(apps.callerPort, `/fetch?port=${apps.calleePort}`)).body, 'ok');
  const spans = await apps.stop();
  assert.equal(spans.filter((s) => s.kind === 'CLIENT').length, 0);
  const servers = spans.filter((s) => s.kind === 'SERVER');
  assert.equal(servers.length, 2);
  assert.notEqual(servers[0].traceId, servers[1].traceId);
});
