// OTLP export (OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_*) to a local receiver, and an exit that
// a backend which refuses or never answers cannot hold beyond TRACEHOOK_SHUTDOWN_TIMEOUT_MS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeExportRequest } from '../dist/span-file/decode.js';
import { refusedPort, startReceiver } from './helpers/otlp-receiver.mjs';
import { start } from './helpers/fixture.mjs';

test('OTLP http/json: every span reaches the receiver, decoded as OTLP/JSON', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const env = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}` };
  const { code } = await start('exit-app.mjs', { args: ['normal', '30'], env }).done;
  assert.equal(code, 0);
  const spans = receiver.requests.flatMap((r) => decodeExportRequest(JSON.parse(r.body.toString())));
  assert.equal(receiver.requests[0].url, '/v1/traces');
  assert.deepEqual(spans.map((s) => s.name).sort(), Array.from({ length: 30 }, (_, i) => `work-${i}`).sort());
});

test('an OTLP endpoint alone means otlp, http/protobuf by default; process.exit keeps its code', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiver.port}/v1/traces` };
  const { code } = await start('exit-app.mjs', { args: ['normal', '5'], env }).done;
  assert.equal(code, 0);
  assert.equal(receiver.requests.length > 0, true);
  assert.equal(receiver.requests[0].contentType, 'application/x-protobuf');
  // Each span name is a protobuf string field: find them in the payload.
  const payload = Buffer.concat(receiver.requests.map((r) => r.body)).toString('latin1');
  for (let i = 0; i < 5; i++) assert.ok(payload.includes(`work-${i}`));
});

for (const backend of ['refuses', 'never answers']) {
  test(`a backend that ${backend} cannot hold the exit beyond the bound; exit code kept`, async (t) => {
    let port;
    if (backend === 'refuses') port = await refusedPort();
    else {
      const receiver = await startReceiver('hang');
      t.after(() => receiver.close());
      port = receiver.port;
    }
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '300' };
    // The exporter's own timeout is 10 s: only the bound lets the app end before the helper's kill.
    const { code, signal } = await start('exit-app.mjs', { args: ['normal', '5'], env, timeoutMs: 8000 }).done;
    assert.equal(signal, null);
    assert.equal(code, 0);
  });
}

for (const protocol of ['http/protobuf', 'http/json']) {
  test(`OTLP ${protocol}: spans still queued at process.exit() reach the receiver; exit code kept`, async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    // The sender process must start within the bound: 400 ms is not enough on a loaded machine, and
    // the bound is not what this test is about.
    const env = { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=t%201', TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000' };
    const { code } = await start('exit-app.mjs', { args: ['exit', '25'], env }).done;
    assert.equal(code, 3);
    const spans = receiver.requests.flatMap((r) => decodeExportRequest(JSON.parse(r.body.toString())));
    assert.deepEqual(spans.map((s) => s.name).sort(), Array.from({ length: 25 }, (_, i) => `work-${i}`).sort());
    assert.equal(receiver.requests[0].headers['x-tenant'], 't 1');
  });
}
