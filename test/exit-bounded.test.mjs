// The end of the process is bounded on every path and the app's own exit work is untouched: an OTLP
// backend that refuses, hangs, answers 429 or answers slowly, or an exporter whose export() throws
// or never calls back, never keeps the process alive more than TRACEHOOK_SHUTDOWN_TIMEOUT_MS after
// the app's own work is done, and the app's async beforeExit cleanup runs to its end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refusedPort, startReceiver } from './helpers/otlp-receiver.mjs';
import { start } from './helpers/fixture.mjs';

/** Runs exit-bounded-app.mjs; returns its end and how long it took, ms. */
async function timedRun(preload, env) {
  const began = Date.now();
  const { code, signal, stdout } = await start('exit-bounded-app.mjs', { preload, env, timeoutMs: 60000 }).done;
  return { end: { code, signal, stdout }, ms: Date.now() - began };
}

// The exporter's own time-out raised to 30 s: the old exit path waited for it (or for the
// BatchSpanProcessor's 30 s export time-out) before the process could end.
const SLOW = { OTEL_EXPORTER_OTLP_TIMEOUT: '30000' };
// Far below the 30 s the old code took, far above what a loaded 2-core machine needs for the bound.
const MARGIN_MS = 12000;

async function backend(t, kind) {
  if (kind === 'refuses') return `http://127.0.0.1:${await refusedPort()}`;
  const receiver = await startReceiver({ hangs: 'hang', 'answers 429': '429', 'answers slowly': 'slow' }[kind], { delayMs: 40000 });
  t.after(() => receiver.close());
  return `http://127.0.0.1:${receiver.port}`;
}

const CASES = [
  ...['refuses', 'hangs', 'answers 429', 'answers slowly'].flatMap((kind) =>
    ['http/protobuf', 'http/json'].map((protocol) => ({
      name: `an OTLP ${protocol} backend that ${kind}`,
      env: async (t) => ({ ...SLOW, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_EXPORTER_OTLP_ENDPOINT: await backend(t, kind) }),
      bounds: kind === 'hangs' ? ['300', '0'] : ['300'],
    })),
  ),
  { name: 'an exporter whose export() throws', env: async () => ({ TRACEHOOK_EXPORTER_IMPORT_PATH: './test/fixtures/hooks/bad-exporters.mjs:throwing' }), bounds: ['300', '0'] },
  { name: 'an exporter whose export() never calls back', env: async () => ({ TRACEHOOK_EXPORTER_IMPORT_PATH: './test/fixtures/hooks/bad-exporters.mjs:silent' }), bounds: ['300', '0'] },
];

for (const { name, env, bounds } of CASES) {
  for (const bound of bounds) {
    test(`${name}, TRACEHOOK_SHUTDOWN_TIMEOUT_MS=${bound}: ends on its own as untraced, its cleanup run, within the bound`, async (t) => {
      const untraced = await timedRun([], {});
      assert.deepEqual(untraced.end, { code: 0, signal: null, stdout: 'work done\ncleanup done\n' });
      for (const preload of [
        ['--import', '@tracehook/register'],
        ['--require', '@tracehook/register'],
      ]) {
        const traced = await timedRun(preload, { ...(await env(t)), TRACEHOOK_SHUTDOWN_TIMEOUT_MS: bound });
        assert.deepEqual(traced.end, untraced.end, preload[0]);
        assert.ok(traced.ms < untraced.ms + MARGIN_MS, `${preload[0]}: ended after ${traced.ms} ms (untraced ${untraced.ms} ms)`);
      }
    });
  }
}
