// A startup hook's own span processors at process.exit() (issue 29): the README's hook example delivers its
// spans, and a hook whose exporter cannot finish at exit (OpenTelemetry's own asynchronous OTLP exporter, or a
// resource with attributes still pending) gets one line saying how many spans may be lost and why.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeExportRequest } from '../dist/span-file/decode.js';
import { FIXTURES, ROOT, start } from './helpers/fixture.mjs';
import { decodeOtlpProtobuf } from './helpers/otlp-proto.mjs';
import { startReceiver } from './helpers/otlp-receiver.mjs';

/** Runs exit-app.mjs (one span, then process.exit(3)) under `hook` against a local OTLP/HTTP receiver. */
async function oneSpanThenExit(t, hook) {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  // The exit sender must start within the bound on a loaded machine; the bound is not what this is about.
  const env = { TRACEHOOK_STARTUP_HOOK: hook, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000' };
  const end = await start('exit-app.mjs', { args: ['exit', '1'], env }).done;
  const spans = receiver.requests.flatMap((r) => (r.contentType === 'application/json' ? decodeExportRequest(JSON.parse(r.body.toString())) : decodeOtlpProtobuf(r.body)));
  return { ...end, spans };
}

test("the README's tracing.mjs hook example delivers a span ended right before process.exit(), silently", async (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const example = readme.match(/```js\n(\/\/ tracing\.mjs — TRACEHOOK_STARTUP_HOOK=\.\/tracing\.mjs:setupTracing\n[\s\S]*?)```/)?.[1];
  assert.ok(example, "README.md's tracing.mjs example");
  // Inside the package, so `@tracehook/register/api` resolves as it does in an app that installed it.
  const file = join(FIXTURES, 'hooks', `.readme-tracing-${process.pid}.mjs`);
  writeFileSync(file, example);
  t.after(() => rmSync(file, { force: true }));
  const { code, stderr, spans } = await oneSpanThenExit(t, `${file}:setupTracing`);
  assert.equal(code, 3);
  assert.equal(stderr, '');
  assert.deepEqual(
    spans.map((s) => s.name),
    ['work-0'],
  );
});

const LOSSES = [
  { hook: 'stockOtlp', why: /its exporter \(OTLPTraceExporter\) is asynchronous, and the process ending leaves no turn of the event loop for it to finish/ },
  { hook: 'pendingResource', why: /they wait for resource attributes still pending/ },
];
for (const { hook, why } of LOSSES) {
  test(`a startup hook whose own exporter cannot finish at process.exit() (${hook}): one line says how many spans may be lost and why`, async (t) => {
    const name = `./test/fixtures/hooks/exit-hooks.mjs:${hook}`;
    const { code, stderr, spans } = await oneSpanThenExit(t, name);
    assert.equal(code, 3);
    assert.deepEqual(spans, []);
    const lines = stderr.trim().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0], new RegExp(`^\\[tracehook\\] exit: 1 span of the startup hook's own span processors \\(TRACEHOOK_STARTUP_HOOK=${name.replace(/[.]/g, '\\.')}\\) may be lost: `));
    assert.match(lines[0], why);
    assert.match(lines[0], /createOtlpSpanExporter\(\) and FileSpanExporter from @tracehook\/register\/api finish at exit/);
  });
}
