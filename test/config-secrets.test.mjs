// Secrets in the configuration never reach stderr: an OTLP endpoint's user, password and query, and header values,
// in the diagnostic lines of a failing export and of a malformed header list.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { run, spansDir } from './helpers/fixture.mjs';

test('a failing OTLP export names the endpoint with its credentials and query redacted, and no header value', async (t) => {
  let requests = 0;
  const backend = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => res.writeHead(400).end());
  });
  await new Promise((resolve) => backend.listen(0, '127.0.0.1', resolve));
  t.after(() => backend.close());
  const { port } = backend.address();
  const { code, stderr } = await run('exit-app.mjs', {
    args: ['normal', '2'],
    env: {
      TRACEHOOK_SPANS_DIR: spansDir(t),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://user:s3cret@127.0.0.1:${port}/v1/traces?token=abc123`,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20t0ken,broken',
    },
  });
  assert.equal(code, 0);
  assert.ok(requests > 0, 'the backend was asked');
  assert.match(stderr, /export to OTLP http\/json http:\/\/REDACTED:REDACTED@127\.0\.0\.1:\d+\/v1\/traces\?token=REDACTED failed: HTTP status 400/);
  assert.match(stderr, /OTEL_EXPORTER_OTLP_HEADERS is not valid: .*\(entry 2 has no '='\)/);
  assert.doesNotMatch(stderr, /s3cret|abc123|t0ken/);
});
