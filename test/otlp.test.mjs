// OTLP export (OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_*: http/json, http/protobuf, grpc) to a local receiver, and an exit that
// a backend which refuses or never answers cannot hold beyond TRACEHOOK_SHUTDOWN_TIMEOUT_MS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { decodeExportRequest } from '../dist/span-file/decode.js';
import { assertCallChain, sendCallChain, waitFor } from './helpers/call-chain.mjs';
import { startGrpcReceiver } from './helpers/otlp-grpc-receiver.mjs';
import { decodeOtlpProtobuf } from './helpers/otlp-proto.mjs';
import { partialSuccessResponse, refusedPort, startReceiver } from './helpers/otlp-receiver.mjs';
import { lossLine } from './helpers/span-file-checks.mjs';
import { burst } from './helpers/burst.mjs';
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

test('an OTLP endpoint alone means otlp, http/protobuf by default: every span arrives as a protobuf request', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiver.port}/v1/traces` };
  const { code } = await start('exit-app.mjs', { args: ['normal', '5'], env }).done;
  assert.equal(code, 0);
  assert.equal(receiver.requests.length > 0, true);
  for (const r of receiver.requests) assert.equal(r.contentType, 'application/x-protobuf');
  const spans = receiver.requests.flatMap((r) => decodeOtlpProtobuf(r.body));
  assert.deepEqual(
    spans.map((s) => s.name).sort(),
    Array.from({ length: 5 }, (_, i) => `work-${i}`),
  );
});

/**
 * Runs exit-bounded-app.mjs (5 spans; "work done", then a 300 ms beforeExit cleanup of its own) and
 * measures from its "work done" line to the process's end, so a slow start on a loaded machine
 * does not count. @returns `{ end: { code, signal, stdout }, ms }`
 */
async function timeTheEnd(preload, env) {
  const app = start('exit-bounded-app.mjs', { preload, env, args: ['5'], timeoutMs: 60000 });
  await app.ready(/work done/);
  const began = Date.now();
  const { code, signal, stdout } = await app.done;
  return { end: { code, signal, stdout }, ms: Date.now() - began };
}

// The exporter's own time-out is 10 s: without the bound, the end would wait for it.
const BOUND_MS = 300;
// Wide enough for a loaded 2-core machine, far below the 10 s a held exit takes.
const MARGIN_MS = 3000;

for (const backend of ['refuses', 'never answers']) {
  test(`a backend that ${backend} cannot hold the exit beyond the bound (${BOUND_MS} ms, measured against the untraced run); exit code and output kept`, async (t) => {
    let port;
    if (backend === 'refuses') port = await refusedPort();
    else {
      const receiver = await startReceiver('hang');
      t.after(() => receiver.close());
      port = receiver.port;
    }
    const untraced = await timeTheEnd([], {});
    assert.deepEqual(untraced.end, { code: 0, signal: null, stdout: 'work done\ncleanup done\n' });
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: String(BOUND_MS) };
    const traced = await timeTheEnd(['--import', '@tracehook/register'], env);
    assert.deepEqual(traced.end, untraced.end);
    assert.ok(traced.ms < untraced.ms + BOUND_MS + MARGIN_MS, `ended ${traced.ms} ms after its work (untraced: ${untraced.ms} ms, bound ${BOUND_MS} ms)`);
  });
}

for (const protocol of ['http/protobuf', 'http/json']) {
  test(`OTLP ${protocol}: spans still queued at process.exit() reach the receiver; exit code kept`, async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    // The sender process must start within the bound: 400 ms is not enough on a loaded machine, and
    // the bound is not what this test is about.
    const env = {
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=t%201',
      TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000',
    };
    const { code } = await start('exit-app.mjs', { args: ['exit', '25'], env }).done;
    assert.equal(code, 3);
    const spans = receiver.requests.flatMap((r) => decodeExportRequest(JSON.parse(r.body.toString())));
    assert.deepEqual(spans.map((s) => s.name).sort(), Array.from({ length: 25 }, (_, i) => `work-${i}`).sort());
    assert.equal(receiver.requests[0].headers['x-tenant'], 't 1');
  });
}

/**
 * Runs http-app.mjs with `env`, sends one call chain, waits until `spans()` holds its three spans
 * (so the exporter sent them while the app ran, not the exit path), then SIGTERM.
 * @returns the incoming traceparent's ids and how the app ended
 */
async function exportWhileRunning(t, env, spans) {
  const app = start('http-app.mjs', { env: { OTEL_BSP_SCHEDULE_DELAY: '100', ...env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  const incoming = await sendCallChain(assert, port);
  await waitFor(() => spans().length >= 3, 15000, 'three spans at the receiver');
  app.kill('SIGTERM');
  const { code, signal } = await app.done;
  return { incoming, end: { code, signal } };
}

test('OTLP grpc: the OTLP/gRPC exporter sends each span to TraceService/Export while the app runs (trace ids, parents, kinds, resource, metadata)', async (t) => {
  const receiver = await startGrpcReceiver();
  t.after(() => receiver.close());
  const env = {
    OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=t%201',
    OTEL_SERVICE_NAME: 'grpc-happy',
  };
  const spans = () => receiver.requests.flatMap((r) => decodeOtlpProtobuf(r.body));
  const { incoming, end } = await exportWhileRunning(t, env, spans);
  assert.deepEqual(end, { code: null, signal: 'SIGTERM' });
  assertCallChain(assert, spans(), incoming);
  for (const s of spans()) assert.equal(s.resource['service.name'], 'grpc-happy');
  assert.equal(receiver.requests[0].metadata['x-tenant'], 't 1');
});

test('OTLP http/protobuf: the body decodes as a protobuf ExportTraceServiceRequest (trace ids, parents, kinds)', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const spans = () => receiver.requests.flatMap((r) => decodeOtlpProtobuf(r.body));
  const { incoming, end } = await exportWhileRunning(t, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}` }, spans);
  assert.deepEqual(end, { code: null, signal: 'SIGTERM' });
  assert.equal(receiver.requests[0].url, '/v1/traces');
  assert.equal(receiver.requests[0].contentType, 'application/x-protobuf');
  assertCallChain(assert, spans(), incoming);
});

test('OTEL_EXPORTER_OTLP_COMPRESSION=gzip: the request body is gzip-encoded protobuf holding every span', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' };
  const { code } = await start('exit-app.mjs', { args: ['normal', '5'], env }).done;
  assert.equal(code, 0);
  assert.ok(receiver.requests.length > 0);
  for (const r of receiver.requests) assert.equal(r.headers['content-encoding'], 'gzip');
  const spans = receiver.requests.flatMap((r) => decodeOtlpProtobuf(gunzipSync(r.body)));
  assert.deepEqual(
    spans.map((s) => s.name).sort(),
    Array.from({ length: 5 }, (_, i) => `work-${i}`),
  );
});

test('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL wins over OTEL_EXPORTER_OTLP_PROTOCOL (http/json over grpc)', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' };
  const { code, stderr } = await start('exit-app.mjs', { args: ['normal', '3'], env }).done;
  assert.equal(code, 0);
  assert.equal(stderr, '');
  assert.equal(receiver.requests[0].contentType, 'application/json');
  const spans = receiver.requests.flatMap((r) => decodeExportRequest(JSON.parse(r.body.toString())));
  assert.deepEqual(spans.map((s) => s.name).sort(), ['work-0', 'work-1', 'work-2']);
});

// Issue 29: a backend's partial success (ExportTraceServiceResponse.partialSuccess.rejectedSpans) was
// counted as exported. Its spans are counted as dropped, "rejected by backend", with one line carrying the
// backend's message, made printable (control characters escaped).
const REJECTION = 'span too large\u001b[31m\nfake line';
const PRINTED = 'span too large\\x1b[31m\\x0afake line'; // as src/diag/control-chars.ts escapes
const PARTIAL_CASES = [
  { protocol: 'http/protobuf', mode: 'normal' },
  { protocol: 'http/json', mode: 'normal' },
  { protocol: 'grpc', mode: 'normal' },
  // At process.exit() the spans go through the exit sender (OTLP/JSON over HTTP, protobuf over gRPC), which reads the answer too.
  { protocol: 'http/protobuf', mode: 'exit' },
  { protocol: 'grpc', mode: 'exit' },
];
for (const { protocol, mode } of PARTIAL_CASES) {
  test(`OTLP ${protocol}, ${mode === 'exit' ? 'process.exit()' : 'while running'}: spans a backend rejects in a partial success are counted as lost, its message printed once, escaped`, async (t) => {
    const receiver = protocol === 'grpc' ? await startGrpcReceiver({ answer: partialSuccessResponse(2, REJECTION) }) : await startReceiver('partial', { rejectedSpans: 2, errorMessage: REJECTION });
    t.after(() => receiver.close());
    const env = { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000' };
    const { code, stderr } = await start('exit-app.mjs', { args: [mode, '5'], env }).done;
    assert.equal(code, mode === 'exit' ? 3 : 0);
    const requests = receiver.requests.length;
    assert.ok(requests >= 1);
    const rejected = Math.min(5, 2 * requests);
    assert.deepEqual(lossLine(stderr), { lost: rejected, ended: 5, queueFull: 0, exportFailed: 0, writeFailed: 0, shutdownBound: 0, rejected, exported: 5 - rejected });
    assert.match(stderr, new RegExp(`rejected 2 of \\d spans \\(OTLP partial success\\): ${PRINTED.replace(/[\\[\]]/g, '\\$&')}; those spans are dropped and counted`));
    assert.doesNotMatch(stderr, /\u001b|fake line\n|^fake line/m);
  });
}

// A burst's requests are encoded a few spans per turn of the event loop (the span processor's slices): every
// span still arrives, whole, in both encodings.
for (const [protocol, decode] of [
  ['http/protobuf', (r) => decodeOtlpProtobuf(r.body)],
  ['http/json', (r) => decodeExportRequest(JSON.parse(r.body.toString()))],
]) {
  test(`OTLP ${protocol}: a burst of 2000 spans all arrive with their ids, parents and attributes`, async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const env = { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000' };
    const app = start('burst-app.mjs', { env, timeoutMs: 60_000 });
    const [, port] = await app.ready();
    assert.equal(await burst(port, { total: 400, concurrency: 100 }), 400);
    app.kill('SIGTERM');
    const { stderr } = await app.done;
    assert.equal(lossLine(stderr), undefined, stderr);
    const spans = receiver.requests.flatMap(decode);
    assert.equal(spans.length, 2000);
    assert.equal(new Set(spans.map((s) => s.spanId)).size, 2000);
    const servers = new Map(spans.filter((s) => s.kind === 'SERVER').map((s) => [s.spanId, s]));
    assert.equal(servers.size, 400);
    for (const s of servers.values()) assert.equal(s.attributes['url.path'], '/work');
    const children = spans.filter((s) => s.kind !== 'SERVER');
    for (const child of children) {
      const parent = servers.get(child.parentSpanId);
      assert.ok(parent, `${child.name}'s parent is a SERVER span`);
      assert.equal(child.traceId, parent.traceId);
    }
    assert.deepEqual(
      children.filter((s) => s.name === 'load').map((s) => s.attributes.rows),
      Array(400).fill(3),
    );
  });
}
