// A startup hook on OpenTelemetry JS's newest major: NodeSDK 0.301 (SDK 3.x, @opentelemetry/api 1.10) with its own
// instrumentation-http, from test/fixtures/node-sdk-next (installed here from its package-lock.json with `npm ci`).
// tracehook steps aside: nothing on stderr, one SERVER span per request (the hook's), its BatchSpanProcessor flushed
// at process.exit() without holding the exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, get, readSpans, spansDir, start } from './helpers/fixture.mjs';

const DIR = join(FIXTURES, 'node-sdk-next');
const [major, minor] = process.versions.node.split('.').map(Number);
const ENGINES = '@opentelemetry/sdk-node 0.301.0 declares engines node >=22.15.0';
const tooOld = major < 22 || (major === 22 && minor < 15);

function install() {
  if (existsSync(join(DIR, 'node_modules', '@opentelemetry', 'sdk-node'))) return;
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: DIR, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('NodeSDK on SDK 3.x as the startup hook: one SERVER span per request, nothing on stderr, flushed at process.exit()', { skip: tooOld && `Node ${process.versions.node}: ${ENGINES}` }, async (t) => {
  install();
  const dir = spansDir(t);
  const env = {
    TRACEHOOK_SPANS_DIR: dir,
    TRACEHOOK_STARTUP_HOOK: `${join(DIR, 'hook.cjs')}:setupTracing`,
    OTEL_SERVICE_NAME: 'next-app',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  };
  const app = start('http-app.mjs', { env });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  for (let i = 0; i < 3; i++) assert.equal((await get(port, '/')).body, 'ok');
  const t0 = Date.now();
  await get(port, '/exit').catch(() => {});
  const { code, stderr } = await app.done;
  assert.equal(code, 0);
  assert.equal(stderr, '');
  assert.ok(Date.now() - t0 < 5000, 'exits within the flush bound (wide margin)');
  // The '/exit' request's span is still open at process.exit(); the three before it were flushed from the batch.
  const servers = (await readSpans(dir)).filter((s) => s.kind === 'SERVER');
  assert.equal(servers.length, 3, JSON.stringify(servers.map((s) => [s.scope, s.name])));
  assert.equal(new Set(servers.map((s) => s.traceId)).size, 3);
  for (const s of servers) assert.equal(s.resource['service.name'], 'next-app');
});
