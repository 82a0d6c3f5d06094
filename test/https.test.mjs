// node:https is traced whichever way the app first loads it, although the preload no longer loads it at
// startup: an ES module's `import https, { request } from 'node:https'` (the preload patches it as it loads,
// before the module's body runs) and a CommonJS `require('node:https')` that serves and calls at once.
// Each app serves HTTPS and calls itself: one trace of SERVER → CLIENT → SERVER, traceparent sent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, readSpans, spansDir, start } from './helpers/fixture.mjs';

const ca = readFileSync(join(FIXTURES, 'tls', 'cert.pem'));

function call(port, path) {
  return new Promise((resolve, reject) => {
    httpsGet({ host: '127.0.0.1', port, path, ca }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (d) => (body += d))
        .on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

for (const [fixture, preload] of [
  ['https-app.mjs', ['--import', '@tracehook/register']],
  ['https-app.cjs', ['--import', '@tracehook/register']],
  ['https-app.cjs', ['--require', '@tracehook/register']],
]) {
  test(`${fixture} under ${preload[0]}: SERVER → CLIENT → SERVER over https, one trace`, async (t) => {
    const spans = spansDir(t);
    const app = start(fixture, { preload, env: { TRACEHOOK_SPANS_DIR: spans, OTEL_SERVICE_NAME: 'app' } });
    const [, port] = await app.ready();
    assert.deepEqual(await call(Number(port), '/call'), { status: 200, body: 'leaf' });
    app.kill('SIGTERM');
    const { stderr } = await app.done;
    assert.equal(stderr, '');
    const all = await readSpans(spans);
    const outer = all.find((s) => s.kind === 'SERVER' && s.attributes['url.path'] === '/call');
    assert.ok(outer, `a SERVER span for /call in ${JSON.stringify(all.map((s) => [s.kind, s.name]))}`);
    assert.equal(outer.attributes['url.scheme'], 'https');
    const client = all.find((s) => s.kind === 'CLIENT' && s.parentSpanId === outer.spanId);
    assert.ok(client, 'the call is a CLIENT span under the SERVER span');
    const inner = all.find((s) => s.kind === 'SERVER' && s.attributes['url.path'] === '/leaf');
    assert.ok(inner, 'a SERVER span for /leaf');
    assert.equal(inner.traceId, outer.traceId, 'traceparent was sent');
    assert.equal(inner.parentSpanId, client.spanId);
  });
}
