// `tracehook export`: span files of a real traced run sent to a local OTLP/HTTP receiver, decoded
// there as http/json (JSON.parse) and http/protobuf (protobufjs with the official OTLP .proto
// files, opentelemetry-proto v1.7.0 as vendored in dd-trace), never with tracehook's own decoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { ROOT, readSpans, spansDir } from './helpers/fixture.mjs';
import { refusedPort, startReceiver } from './helpers/otlp-receiver.mjs';
import { runViewFixture } from './helpers/view-fixture.mjs';

const require = createRequire(import.meta.url);
const PROTO_DIR = join(dirname(require.resolve('dd-trace/package.json')), 'packages/dd-trace/src/opentelemetry/otlp');
const ExportTraceServiceRequest = protobuf.loadSync(join(PROTO_DIR, 'trace_service.proto')).lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

function exportCli(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/tracehook.mjs', 'export', ...args], { cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

/** Flattens received requests (as plain OTLP/JSON-shaped objects) into comparable span records. */
function flatten(requests) {
  const out = [];
  for (const req of requests) {
    for (const rs of req.resourceSpans) {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name').value.stringValue;
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          out.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            service,
            start: String(s.startTimeUnixNano),
            end: String(s.endTimeUnixNano),
            attributes: Object.fromEntries(s.attributes.map((a) => [a.key, Object.values(a.value)[0]])),
            links: (s.links ?? []).map((l) => [l.traceId, l.spanId]),
            status: s.status?.code ?? 0,
          });
        }
      }
    }
  }
  return out.sort((a, b) => (a.spanId < b.spanId ? -1 : 1));
}

/** What the span files hold, in the same shape. */
async function expected(dir) {
  const kinds = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };
  const codes = { UNSET: 0, OK: 1, ERROR: 2 };
  return (await readSpans(dir))
    .map((s) => ({
      traceId: s.traceId,
      spanId: s.spanId,
      parentSpanId: s.parentSpanId,
      name: s.name,
      kind: kinds[s.kind],
      service: s.resource['service.name'],
      start: String(s.startTimeUnixNano),
      end: String(s.endTimeUnixNano),
      attributes: s.attributes,
      links: s.links.map((l) => [l.traceId, l.spanId]),
      status: codes[s.status.code],
    }))
    .sort((a, b) => (a.spanId < b.spanId ? -1 : 1));
}

const hex = (b64) => Buffer.from(b64, 'base64').toString('hex');

test('tracehook export sends span files as http/json and http/protobuf that decode to the same spans', async (t) => {
  const dir = await runViewFixture(t);
  const want = await expected(dir);
  assert.ok(want.length >= 40, `fixture wrote ${want.length} spans`);
  assert.ok(
    want.some((s) => s.kind === 5 && s.service === 'stock'),
    'a CONSUMER span in the child process',
  );

  const receiver = await startReceiver('accept');
  t.after(() => receiver.close());
  const base = `http://127.0.0.1:${receiver.port}`;

  const json = await exportCli([dir, '--endpoint', base]);
  assert.equal(json.code, 0, json.stderr);
  assert.match(json.stdout, new RegExp(`^tracehook export: sent ${want.length} spans from 4 span files in 1 request to ${base}/v1/traces \\(http/json\\)\\n$`));
  assert.deepEqual(
    receiver.requests.map((r) => [r.url, r.contentType]),
    [['/v1/traces', 'application/json']],
  );
  const jsonSpans = flatten(receiver.requests.map((r) => JSON.parse(r.body.toString('utf8'))));
  // OTLP/JSON carries int64 as a number or a string; compare values as the files hold them.
  for (const s of jsonSpans)
    for (const k of Object.keys(s.attributes))
      if (typeof s.attributes[k] === 'string' && /^\d+$/.test(s.attributes[k]) && typeof want.find((w) => w.spanId === s.spanId).attributes[k] === 'number') s.attributes[k] = Number(s.attributes[k]);
  assert.deepEqual(jsonSpans, want);

  receiver.requests.length = 0;
  const proto = await exportCli([dir, '--endpoint', `${base}/custom/path`, '--protocol', 'http/protobuf', '--batch-spans', '10', '--header', 'x-tenant=demo']);
  assert.equal(proto.code, 0, proto.stderr);
  assert.match(proto.stdout, new RegExp(`sent ${want.length} spans from 4 span files in \\d+ requests to ${base}/custom/path \\(http/protobuf\\)`));
  assert.ok(receiver.requests.length >= Math.ceil(want.length / 10), `${receiver.requests.length} requests`);
  for (const r of receiver.requests) {
    assert.equal(r.url, '/custom/path');
    assert.equal(r.contentType, 'application/x-protobuf');
    assert.equal(r.headers['x-tenant'], 'demo');
  }
  const decoded = receiver.requests.map((r) => {
    const obj = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(r.body), { longs: String, bytes: String, defaults: false, enums: Number });
    assert.ok(flatten([obj]).length <= 10, 'batch bounded by --batch-spans');
    return obj;
  });
  const protoSpans = flatten(decoded).map((s) => ({
    ...s,
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    parentSpanId: s.parentSpanId && hex(s.parentSpanId),
    links: s.links.map((l) => l.map(hex)),
  }));
  for (const s of protoSpans) for (const k of Object.keys(s.attributes)) if (typeof s.attributes[k] === 'string' && /^\d+$/.test(s.attributes[k])) s.attributes[k] = Number(s.attributes[k]);
  assert.deepEqual(
    protoSpans.sort((a, b) => (a.spanId < b.spanId ? -1 : 1)),
    want,
  );
});

/** A span file `1.jsonl` in `dir` holding one span. */
function writeOneSpan(dir) {
  const line = JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: [{ scope: { name: 's' }, spans: [{ traceId: '1'.repeat(32), spanId: '2'.repeat(16), name: 'n', kind: 1, startTimeUnixNano: '1', endTimeUnixNano: '2' }] }],
      },
    ],
  });
  writeFileSync(join(dir, '1.jsonl'), `${line}\n`);
}

test('tracehook export fails with exit code 1 and a clear message when the endpoint refuses or rejects', async (t) => {
  const dir = spansDir(t);
  writeOneSpan(dir);

  const refused = await exportCli([dir, '--endpoint', `http://127.0.0.1:${await refusedPort()}`]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^tracehook export: POST http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed: ECONNREFUSED \(0 spans were sent before it; stopping\)\n$/);

  const server = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(400, { 'content-type': 'text/plain' }).end('bad payload')));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const rejected = await exportCli([dir, '--endpoint', `http://127.0.0.1:${server.address().port}`, '--header', 'authorization=Bearer secret-token']);
  assert.equal(rejected.code, 1);
  assert.match(rejected.stderr, /answered HTTP 400 Bad Request: bad payload \(0 spans were sent before it; stopping\)/);
  assert.doesNotMatch(rejected.stderr, /secret-token/);

  for (const [args, message] of [
    [[dir], /--endpoint is required/],
    [[dir, '--endpoint', 'ftp://x'], /--endpoint: expected an http:\/\/ or https:\/\/ URL, got "ftp:\/\/x\/"/],
    [[dir, '--endpoint', 'http://127.0.0.1:1', '--protocol', 'grpc'], /--protocol: expected http\/json or http\/protobuf, got "grpc"/],
    [[dir, '--endpoint', 'http://127.0.0.1:1', '--header', 'secret-token'], /--header: expected key=value/],
  ]) {
    const r = await exportCli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /secret-token/);
  }
});

// Issue 29 item 5: the endpoint was printed as given, password and `?api_key=` value included.
test('tracehook export names the endpoint without its user, password or query values, and sends user:password@ as Basic authorization', async (t) => {
  const dir = spansDir(t);
  writeOneSpan(dir);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const SECRETS = /passw0rd|K3Y-VALUE|S3CR3T|apikey/;

  const sent = await exportCli([dir, '--endpoint', `http://user:passw0rd@127.0.0.1:${receiver.port}/?api_key=K3Y-VALUE`]);
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal(sent.stdout, `tracehook export: sent 1 span from 1 span file in 1 request to http://REDACTED:REDACTED@127.0.0.1:${receiver.port}/v1/traces?api_key=REDACTED (http/json)\n`);
  assert.equal(receiver.requests.length, 1);
  assert.equal(receiver.requests[0].url, '/v1/traces?api_key=K3Y-VALUE', 'the endpoint itself is used as given');
  assert.equal(receiver.requests[0].headers.authorization, `Basic ${Buffer.from('user:passw0rd').toString('base64')}`);

  const refused = await exportCli([dir, '--endpoint', `http://user:passw0rd@127.0.0.1:${await refusedPort()}/v1/traces?api_key=K3Y-VALUE`]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^tracehook export: POST http:\/\/REDACTED:REDACTED@127\.0\.0\.1:\d+\/v1\/traces\?api_key=REDACTED failed: ECONNREFUSED/);

  const unparseable = await exportCli([dir, '--endpoint', 'https://apikey:S3CR3T#1@collector.example.com']);
  assert.equal(unparseable.code, 2);
  assert.equal(unparseable.stderr, 'tracehook export: --endpoint: expected an http:// or https:// URL (it is not a URL; the value is not shown, as it may hold a secret)\n');

  const scheme = await exportCli([dir, '--endpoint', 'ftp://user:passw0rd@collector/?api_key=K3Y-VALUE']);
  assert.equal(scheme.code, 2);
  assert.match(scheme.stderr, /got "ftp:\/\/REDACTED:REDACTED@collector\/\?api_key=REDACTED"/);
  for (const r of [sent, refused, unparseable, scheme]) assert.doesNotMatch(r.stdout + r.stderr, SECRETS);
});
