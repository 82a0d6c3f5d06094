// Spans still open when the process ends (uncaught exception, process.exit(), SIGTERM) are ended
// and exported at exit, marked tracehook.incomplete=true; an uncaught exception is recorded on the
// span that was active where it was thrown. How the process ends does not change.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { readSpans, spansDir, start } from './helpers/fixture.mjs';

const count = (app, path) => app.stdout.split('\n').filter((l) => l === `got ${path}`).length;

async function waitFor(check) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), 'condition met within 5 s');
}

/** Sends GET `path` `n` times without waiting for answers; resolves once the app has seen them all. */
async function inFlight(app, port, path, n = 1) {
  const before = count(app, path);
  for (let i = 0; i < n; i++) http.get({ host: '127.0.0.1', port, path, agent: false }).on('error', () => {});
  await waitFor(() => count(app, path) === before + n);
}

async function startApp(t, mode = 'fast') {
  const dir = spansDir(t);
  const app = start('request-data-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: mode } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  return { app, port, dir };
}

function assertIncomplete(spans, path, n) {
  const servers = spans.filter((s) => s.kind === 'SERVER' && s.attributes['url.path'] === path);
  assert.equal(servers.length, n, `${n} SERVER span(s) for ${path} in the files`);
  for (const s of servers) {
    assert.equal(s.attributes['tracehook.incomplete'], true, `${path} marked incomplete`);
    assert.ok(s.endTimeUnixNano >= s.startTimeUnixNano);
  }
  return servers;
}

test('uncaught exception in a handler while 3 other requests are in flight: all their spans exported, the exception on the active span', async (t) => {
  const { app, port, dir } = await startApp(t);
  await inFlight(app, port, '/slow', 3);
  await inFlight(app, port, '/crash');
  const { code, signal, stderr } = await app.done;
  assert.equal(code, 1, 'the uncaught exception still ends the process with status 1');
  assert.equal(signal, null);
  assert.match(stderr, /Error: handler exploded/, 'Node still prints the exception');
  const spans = await readSpans(dir);
  const slow = assertIncomplete(spans, '/slow', 3);
  const [crash] = assertIncomplete(spans, '/crash', 1);
  const work = spans.filter((s) => s.name === 'slow-work');
  assert.equal(work.length, 3);
  for (const w of work) {
    assert.equal(w.attributes['tracehook.incomplete'], true);
    assert.ok(slow.some((s) => s.spanId === w.parentSpanId));
  }
  const [thrower] = spans.filter((s) => s.name === 'crash-work');
  assert.ok(thrower, 'the span active where the exception was thrown');
  assert.equal(thrower.parentSpanId, crash.spanId);
  assert.equal(thrower.attributes['tracehook.incomplete'], true);
  assert.equal(thrower.status.code, 'ERROR');
  assert.equal(thrower.status.message, 'handler exploded');
  const event = thrower.events.find((e) => e.name === 'exception');
  assert.equal(event?.attributes['exception.message'], 'handler exploded');
  assert.equal(event?.attributes['exception.type'], 'Error');
  assert.equal(crash.status.code, 'UNSET', 'only the active span gets the exception');
});

test('an unhandled rejection in an async handler: recorded on the span active where it was thrown', async (t) => {
  const { app, port, dir } = await startApp(t);
  await inFlight(app, port, '/reject');
  const { code, stderr } = await app.done;
  assert.equal(code, 1);
  assert.match(stderr, /RangeError: async handler rejected/);
  const spans = await readSpans(dir);
  const [work] = spans.filter((s) => s.name === 'reject-work');
  assert.equal(work.status.code, 'ERROR');
  assert.equal(work.events.find((e) => e.name === 'exception')?.attributes['exception.type'], 'RangeError');
  assertIncomplete(spans, '/reject', 1);
});

for (const mode of ['fast', 'stock']) {
  test(`${mode}: a request listener that throws synchronously: the exception on its SERVER span, exported at exit`, async (t) => {
    const { app, port, dir } = await startApp(t, mode);
    await inFlight(app, port, '/slow');
    await inFlight(app, port, '/throw');
    const { code, stderr } = await app.done;
    assert.equal(code, 1);
    assert.match(stderr, /TypeError: listener threw/);
    // Node.js prints the source line of the throw it reports: the app's, as untraced, in the fast mode (the stock
    // one rethrows); never a line of a minified bundle (one was 146 KB).
    if (mode === 'fast') assert.match(stderr, /^file:\/\/\S+\/request-data-app\.mjs:\d+\n\s*throw new TypeError\('listener threw'\);\n/);
    assert.ok(stderr.length < 4096, `${stderr.length} bytes on stderr`);
    const spans = await readSpans(dir);
    assertIncomplete(spans, '/slow', 1);
    const [server] = spans.filter((s) => s.kind === 'SERVER' && s.attributes['url.path'] === '/throw');
    assert.ok(server, 'the SERVER span of the throwing request');
    assert.equal(server.status.code, 'ERROR');
    assert.equal(server.attributes['error.type'], 'TypeError');
    assert.equal(server.events.find((e) => e.name === 'exception')?.attributes['exception.message'], 'listener threw');
  });
}

test('process.exit() inside a request while 2 others are in flight: exit code kept, open spans exported as incomplete', async (t) => {
  const { app, port, dir } = await startApp(t);
  await inFlight(app, port, '/slow', 2);
  await inFlight(app, port, '/exit');
  const { code, signal } = await app.done;
  assert.equal(code, 3);
  assert.equal(signal, null);
  const spans = await readSpans(dir);
  assertIncomplete(spans, '/slow', 2);
  assertIncomplete(spans, '/exit', 1);
  assert.equal(spans.filter((s) => s.name === 'slow-work' && s.attributes['tracehook.incomplete'] === true).length, 2);
});

for (const mode of ['fast', 'stock']) {
  test(`${mode}: SIGTERM with 4 requests in flight: the process still dies by SIGTERM, their spans exported as incomplete`, async (t) => {
    const { app, port, dir } = await startApp(t, mode);
    await inFlight(app, port, '/slow', 4);
    app.kill('SIGTERM');
    const { code, signal } = await app.done;
    assert.equal(signal, 'SIGTERM');
    assert.equal(code, null);
    const spans = await readSpans(dir);
    assertIncomplete(spans, '/slow', 4);
    assert.equal(spans.filter((s) => s.name === 'slow-work' && s.attributes['tracehook.incomplete'] === true).length, 4);
  });
}

test('10,000 spans open at process.exit(): the 8192 tracked are all exported as incomplete, those past the bound are not', async (t) => {
  const dir = spansDir(t);
  const { code, stderr } = await start('open-spans-app.mjs', { args: ['10000'], env: { TRACEHOOK_SPANS_DIR: dir, OTEL_LOG_LEVEL: 'debug' } }).done;
  assert.equal(code, 0);
  assert.match(stderr, /ended 8192 open span\(s\) as incomplete; 1808 started past the bound of 8192 were not tracked/);
  const spans = await readSpans(dir);
  assert.equal(spans.length, 8192, 'no tracked span lost to the batch queue (2048 by default)');
  assert.ok(spans.every((s) => s.attributes['tracehook.incomplete'] === true));
  assert.equal(new Set(spans.map((s) => s.name)).size, 8192);
  assert.ok(spans.some((s) => s.name === 'open-0') && spans.some((s) => s.name === 'open-8191') && !spans.some((s) => s.name === 'open-8192'), 'the first 8192 started are the ones tracked');
});
