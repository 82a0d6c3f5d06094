// What tracehook prints on stderr when something goes wrong: one line per distinct problem with a
// running count, exporter failures as one line (destination, status, what happens to the spans),
// OpenTelemetry's full messages at OTEL_LOG_LEVEL=debug, and never a header value.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { startReceiver } from './helpers/otlp-receiver.mjs';
import { readSpans, run, spansDir, start } from './helpers/fixture.mjs';
import { lossLine } from './helpers/span-file-checks.mjs';

/** An OTLP/HTTP "backend" that answers every export with `status` and a body that is not OTLP. */
async function garbageBackend(t, status) {
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => res.writeHead(status, { 'content-type': 'application/x-protobuf' }).end(Buffer.from('\x0a\xff\xff\xff\x01<html>garbage</html>', 'latin1')));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${server.address().port}`;
}

const SECRET = 's3cr3t-Zq9';

for (const variable of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
  for (const level of ['warn', 'debug']) {
    test(`a malformed ${variable} (OTEL_LOG_LEVEL=${level}): the error names the variable and the entry, never a header value`, async (t) => {
      const receiver = await startReceiver();
      t.after(() => receiver.close());
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
        OTEL_LOG_LEVEL: level,
        // A loaded machine must not turn the exit bound into the subject of this test.
        TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000',
        [variable]: `x-api-key=${SECRET},authorization Bearer ${SECRET},=${SECRET}`,
      };
      const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '3'], env });
      assert.equal(code, 0);
      assert.ok(stderr.includes(`${variable} is not valid: expected \`key=value\` entries separated by commas; ignoring that entry (entry 2 has no '=')`), stderr);
      assert.ok(stderr.includes(`(entry 3 has an empty key)`), stderr);
      assert.ok(!stderr.includes(SECRET), 'the secret reached stderr');
      assert.ok(!stderr.includes('Bearer'), 'header text reached stderr');
      assert.equal(receiver.requests[0].headers['x-api-key'], SECRET, 'the well-formed entry is still sent');
    });
  }
}

test('a backend answering 500 with garbage: one line naming the endpoint and status, a running count, the exact loss at exit; no stack', async (t) => {
  const endpoint = await garbageBackend(t, 500);
  // One span per export: 12 failed exports.
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000' };
  const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '12'], env });
  assert.equal(code, 0);
  const line = `[tracehook] exporter: export to OTLP http/protobuf ${endpoint}/v1/traces failed: HTTP status 500 (Internal Server Error); those spans are dropped and counted`;
  assert.deepEqual(
    stderr.split('\n').filter((l) => l.includes('exporter:')),
    [line, `${line} (10 times so far)`, `${line} (12 times in all)`],
  );
  assert.deepEqual(lossLine(stderr), { lost: 12, ended: 12, queueFull: 0, exportFailed: 12, writeFailed: 0, shutdownBound: 0, exported: 12 - 12 });
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  assert.equal(stderr.trim().split('\n').length, 4);
});

test('a backend answering 200 with garbage: one warning with a running count, no stack, spans counted as exported', async (t) => {
  const endpoint = await garbageBackend(t, 200);
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000' };
  const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '12'], env });
  assert.equal(code, 0);
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 3, stderr);
  assert.match(lines[0], /^\[tracehook\] otel: OTLPExportDelegate Export succeeded but could not deserialize response.* Error: /);
  assert.match(lines[1], /\(10 times so far\)$/);
  assert.match(lines[2], /\(12 times in all\)$/);
  assert.doesNotMatch(stderr, /garbage|\n\s+at /);
});

for (const tracer of ['lean', 'stock']) {
  test(`an app that touches 1000 ended spans (TRACEHOOK_TRACER=${tracer}): a few lines with running counts, not one per span`, async (t) => {
    const dir = spansDir(t);
    const { code, stdout, stderr } = await run('ended-span-app.mjs', { args: ['1000'], env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_TRACER: tracer } });
    assert.equal(code, 0);
    assert.equal(stdout, 'done\n');
    const lines = stderr.split('\n').filter(Boolean);
    // The 1st, 10th, 100th and 1000th time, per problem (an operation on an ended span, a second end()), and totals at exit.
    assert.ok(lines.length >= 2 && lines.length <= 10, `${lines.length} lines:\n${lines.slice(0, 12).join('\n')}`);
    assert.ok(
      lines.some((l) => l.endsWith('(1000 times so far)')),
      stderr,
    );
    assert.equal((await readSpans(dir)).length, 1000);
  });
}

test('an ended span given the value it already holds (Next.js sets http.route after the end): no line, the value kept', async (t) => {
  const dir = spansDir(t);
  const { code, stdout, stderr } = await run('ended-span-app.mjs', { args: ['10', 'same'], env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.deepEqual([code, stdout, stderr], [0, 'done\n', '']);
  const spans = await readSpans(dir);
  assert.equal(spans.length, 10);
  assert.ok(spans.every((s) => s.attributes['http.route'] === '/users/[id]'));
});

test('an app whose ended spans each have a name of their own: the distinct problems kept apart are bounded, the rest counted together', async (t) => {
  const dir = spansDir(t);
  const { code, stderr } = await run('ended-span-app.mjs', { args: ['3000', 'names'], env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(code, 0);
  const lines = stderr.split('\n').filter(Boolean);
  // At most 20 problems of a line each (and their totals at exit), then one shared problem printed at 1, 10, 100, 1000 and at exit.
  assert.ok(lines.length <= 2 * 20 + 5, `${lines.length} lines`);
  assert.ok(
    lines.some((l) => l.includes('more than 20 kinds of problem, counted together from here; the latest: ')),
    stderr.slice(-2000),
  );
  assert.equal((await readSpans(dir)).length, 3000);
});

test('an app whose stderr reader has gone away (a pipe to a process that ended) runs to its end while tracehook warns', async (t) => {
  const dir = spansDir(t);
  // A configuration error at startup, then warnings while it runs: each one a write to the closed pipe.
  const app = start('ended-span-app.mjs', { args: ['100'], env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_MAX_QUEUE_BYTES: 'lots' } });
  app.child.stderr.destroy();
  const { code, signal, stdout } = await app.done;
  assert.equal(signal, null);
  assert.equal(code, 0, 'the app ended as it does untraced');
  assert.equal(stdout, 'done\n');
  assert.equal((await readSpans(dir)).length, 100);
});

test('OTEL_LOG_LEVEL=debug prints OpenTelemetry messages with their arguments', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, OTEL_LOG_LEVEL: 'debug', TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '10000' };
  const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '2'], env });
  assert.equal(code, 0);
  // The exporter's debug message carries the spans as its argument.
  assert.match(stderr, /\[tracehook\] otel: OTLPExportDelegate items to be sent \[.*name: 'work-0'/);
});

test('TRACEHOOK_MAX_QUEUE_BYTES=lots: one line naming it and what is accepted; spans are still written', async (t) => {
  const dir = spansDir(t);
  const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '3'], env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_MAX_QUEUE_BYTES: 'lots' } });
  assert.equal(code, 0);
  assert.equal(stderr, '[tracehook] config: TRACEHOOK_MAX_QUEUE_BYTES="lots" is not valid: expected bytes as a whole number, optionally with KiB, MiB or GiB; using 16MiB\n');
  assert.equal((await readSpans(dir)).length, 3);
});

test('a backend that never answers: the spans of the unfinished export are counted at the shutdown bound', async (t) => {
  const receiver = await startReceiver('hang');
  t.after(() => receiver.close());
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '300' };
  const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '5'], env });
  assert.equal(code, 0);
  assert.deepEqual(lossLine(stderr), { lost: 5, ended: 5, queueFull: 0, exportFailed: 0, writeFailed: 0, shutdownBound: 5, exported: 0 });
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
});
