// Secrets in the configuration never reach stderr: an OTLP endpoint's user, password and query, and header values,
// in the diagnostic lines of a failing export and of a malformed header list. An endpoint that does not parse is a
// configuration error, never a fallback to OpenTelemetry's default (localhost) with the headers.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, ROOT, readSpans, run, spansDir } from './helpers/fixture.mjs';

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

// Issue 29 item 5. '#' ends the URL's authority, so the WHATWG parser reads a port "S3CR3T" and rejects it.
const UNPARSEABLE = 'https://apikey:S3CR3T#1@collector.example.com';
const HEADERS = 'x-api-key=H34DER-VALUE';
const canUnshareNet = process.getuid?.() === 0 && spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up']).status === 0;

/**
 * exit-app.mjs (2 spans) under the preload with `env`. As root, inside a private network namespace
 * where test/fixtures/otlp-default-ports-probe.mjs listens on localhost:4318 and :4317 (OpenTelemetry's
 * defaults): `connections` lists what reached them. Elsewhere `connections` is null (not observed).
 * @returns `{ code, stderr, connections }`
 */
async function runWatchingDefaultPorts(env) {
  if (!canUnshareNet) return { ...(await run('exit-app.mjs', { args: ['normal', '2'], env })), connections: null };
  const childEnv = { ...process.env, ...env };
  for (const k of ['NODE_OPTIONS', 'OTEL_LOG_LEVEL']) delete childEnv[k];
  const probe = spawn('unshare', ['--net', 'sh', '-c', 'ip link set lo up && exec "$0" "$1"', process.execPath, join(FIXTURES, 'otlp-default-ports-probe.mjs')], { cwd: ROOT, env: childEnv });
  let stdout = '';
  let stderr = '';
  probe.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  probe.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => probe.on('close', resolve));
  assert.equal(code, 0, `the probe ran: ${stderr}`);
  return JSON.parse(stdout);
}

for (const [protocol, variable] of [
  ['http/protobuf', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
  ['http/json', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
  ['grpc', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
]) {
  test(`${variable} that does not parse (${protocol}): one line naming the variable, no value; the app runs untraced; nothing reaches localhost:4318/4317`, async (t) => {
    const dir = spansDir(t);
    const { code, stderr, connections } = await runWatchingDefaultPorts({
      TRACEHOOK_SPANS_DIR: dir,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      [variable]: UNPARSEABLE,
      OTEL_EXPORTER_OTLP_HEADERS: HEADERS,
    });
    if (connections === null) t.diagnostic('localhost:4318/4317 not watched: needs root and unshare --net');
    else assert.deepEqual(connections, [], "no connection to OpenTelemetry's default endpoint");
    assert.equal(code, 0);
    const lines = stderr.trim().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0], new RegExp(`^\\[tracehook\\] config: ${variable} is not valid: expected an http:// or https:// URL.*; the app runs untraced$`));
    assert.doesNotMatch(stderr, /S3CR3T|apikey|H34DER/);
    assert.deepEqual(await readSpans(dir), [], 'no span files either');
  });
}

test('an endpoint that does not parse under TRACEHOOK_STRICT=true: exit 1 before the app, the line without the value', async () => {
  const env = { TRACEHOOK_STRICT: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: UNPARSEABLE, OTEL_EXPORTER_OTLP_HEADERS: HEADERS };
  const { code, stdout, stderr } = await run('http-app.mjs', { env });
  assert.equal(code, 1);
  assert.equal(stdout, '', 'the app did not start');
  assert.match(stderr, /^\[tracehook\] config: OTEL_EXPORTER_OTLP_ENDPOINT is not valid: .*; TRACEHOOK_STRICT is set: exiting with status 1\n$/);
  assert.doesNotMatch(stderr, /S3CR3T|apikey|H34DER/);
});

test('createOtlpSpanExporter() (the API, no preload) throws the ConfigError for an endpoint that does not parse; no exporter, no OpenTelemetry warning', async () => {
  const script = `import('@tracehook/register/api').then((api) => { try { api.createOtlpSpanExporter(); console.log('made'); } catch (err) { console.log(err.name + ': ' + err.message); } })`;
  const { code, stdout, stderr } = await run(null, { command: ['-e', script], env: { OTEL_EXPORTER_OTLP_ENDPOINT: UNPARSEABLE, OTEL_EXPORTER_OTLP_HEADERS: HEADERS, OTEL_LOG_LEVEL: 'debug' } });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^ConfigError: OTEL_EXPORTER_OTLP_ENDPOINT is not valid: expected an http:\/\/ or https:\/\/ URL/);
  assert.doesNotMatch(stdout + stderr, /S3CR3T|apikey|H34DER/);
});
