// TRACEHOOK_EXPORTER_IMPORT_PATH=module:function (Ray Serve's exporter_import_path): the span
// processors the function returns receive every span, in place of the span files.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertCallChain, sendCallChain } from './helpers/call-chain.mjs';
import { readSpans, spansDir, start } from './helpers/fixture.mjs';

for (const preload of [
  ['--import', '@tracehook/register'],
  ['--require', '@tracehook/register'],
]) {
  test(`TRACEHOOK_EXPORTER_IMPORT_PATH (${preload[0]}): the SpanExporter it returns receives the request's spans (trace ids, parents, kinds); no span file is written`, async (t) => {
    const exportDir = spansDir(t);
    const dir = spansDir(t);
    const env = {
      TRACEHOOK_EXPORTER_IMPORT_PATH: './test/fixtures/hooks/exporters.mjs:toDirectory',
      FIXTURE_EXPORT_DIR: exportDir,
      TRACEHOOK_SPANS_DIR: dir,
      OTEL_SERVICE_NAME: 'imported',
    };
    const app = start('http-app.mjs', { preload, env });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    const incoming = await sendCallChain(assert, port);
    app.kill('SIGTERM');
    const { signal } = await app.done;
    assert.equal(signal, 'SIGTERM');
    assert.equal(app.stderr, '');
    const spans = await readSpans(exportDir);
    assertCallChain(assert, spans, incoming);
    for (const s of spans) assert.equal(s.resource['service.name'], 'imported');
    assert.deepEqual(await readSpans(dir), [], 'the exporter import path replaces the span files');
  });
}
