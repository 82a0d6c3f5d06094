// FastHttpServerInstrumentation as an OpenTelemetry instrumentation (InstrumentationBase): its
// config is honoured and disable() takes its patch off node:http, so the app's server makes no
// SERVER spans after it. Runs in this process, with the SDK's in-memory exporter.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { FastHttpServerInstrumentation } from '../dist/instrumentations/http/fast-http-server-instrumentation.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);

async function withServer(fn) {
  const server = createServer((req, res) => res.end('ok'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn(server.address().port);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
const get = (port, path = '/') => fetch(`http://127.0.0.1:${port}${path}`, { headers: { connection: 'close' } }).then((r) => r.text());
const serverSpans = () => exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === '@tracehook/register/http-server');
const emitOf = () => createServer().emit;

test('enabled: SERVER spans; disable(): emit is the original again and the server makes no spans; enable() again: spans', async () => {
  exporter.reset();
  const original = emitOf();
  const instrumentation = new FastHttpServerInstrumentation();
  instrumentation.setTracerProvider(provider);
  assert.equal(instrumentation.isEnabled(), true);
  assert.equal(emitOf().__wrapped, true);
  await withServer(async (port) => {
    await get(port, '/a');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(serverSpans().length, 1);
    instrumentation.disable();
    assert.equal(emitOf(), original);
    await get(port, '/b');
    await get(port, '/c');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(serverSpans().length, 1, 'no span after disable()');
    instrumentation.enable();
    instrumentation.enable(); // idempotent: one wrapper, one span per request
    await get(port, '/d');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(serverSpans().length, 2);
  });
  instrumentation.disable();
  assert.equal(emitOf(), original);
});

test('config: enabled false patches nothing; the documented options apply, also through setConfig()', async () => {
  exporter.reset();
  const original = emitOf();
  const instrumentation = new FastHttpServerInstrumentation({ enabled: false, redactQueryParams: ['token'] });
  instrumentation.setTracerProvider(provider);
  assert.equal(instrumentation.isEnabled(), false);
  assert.equal(emitOf(), original);
  assert.equal(instrumentation.getConfig().enabled, false);
  instrumentation.enable();
  await withServer(async (port) => {
    await get(port, '/x?token=secret&keep=1');
    instrumentation.setConfig({ redactQueryParams: ['keep'], requestValueLengthLimit: 8 });
    await get(port, '/y?token=secret&keep=1');
    await new Promise((resolve) => setImmediate(resolve));
  });
  instrumentation.disable();
  const [first, second] = serverSpans();
  assert.equal(first.attributes['url.query'], 'token=REDACTED&keep=1');
  assert.equal(second.attributes['url.query'].length <= 8, true, `bounded to 8: ${second.attributes['url.query']}`);
  assert.equal(second.attributes['url.query'].startsWith('token=se'), true);
});
