// Outgoing requests made outside any trace (a cron job's call, a script's), with node:http and fetch:
// by default each starts a trace of its own, a root CLIENT span whose traceparent it sends, as the
// README says (so two identical requests differ in that header); TRACEHOOK_HTTP_CLIENT_ROOT_SPANS=false
// sends them exactly as an untraced app would. Inside a trace both send the trace's context.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

/** A server recording the headers of each request by its `x-call` header. */
async function recorder(t) {
  const seen = {};
  const server = http.createServer((req, res) => {
    seen[req.headers['x-call']] = req.headers;
    res.end('ok');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  return { port: server.address().port, seen };
}

const TRACE_HEADERS = ['traceparent', 'tracestate', 'baggage'];
const traceIdOf = (headers) => headers.traceparent?.split('-')[1];

for (const value of [undefined, 'true', 'false']) {
  test(`TRACEHOOK_HTTP_CLIENT_ROOT_SPANS=${value ?? '(unset)'}: requests outside a trace, node:http and fetch`, async (t) => {
    const { port, seen } = await recorder(t);
    const dir = spansDir(t);
    const result = await run('client-root-app.mjs', { args: [String(port)], env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_CLIENT_ROOT_SPANS: value } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    const spans = await readSpans(dir);
    const clients = spans.filter((s) => s.kind === 'CLIENT');
    const job = spans.find((s) => s.name === 'job');
    for (const lib of ['http', 'fetch']) {
      // Inside a trace: the request carries the trace, and its CLIENT span is the job's child.
      assert.equal(traceIdOf(seen[`${lib}-in`]), job.traceId, `${lib} inside the job`);
      const [a, b] = [seen[`${lib}-1`], seen[`${lib}-2`]];
      if (value === 'false') {
        for (const h of TRACE_HEADERS) assert.equal(a[h] ?? b[h], undefined, `${lib}: no ${h}`);
        // Identical requests send identical headers, as without the preload.
        const { 'x-call': _a, ...restA } = a;
        const { 'x-call': _b, ...restB } = b;
        assert.deepEqual(restA, restB);
      } else {
        assert.ok(traceIdOf(a) && traceIdOf(b), `${lib}: a traceparent on each`);
        assert.notEqual(traceIdOf(a), traceIdOf(b), `${lib}: a new trace each`);
        for (const headers of [a, b]) {
          const root = clients.find((s) => s.traceId === traceIdOf(headers));
          assert.ok(root, `${lib}: the CLIENT span of the traceparent it sent`);
          assert.equal(root.parentSpanId, undefined, `${lib}: a root span`);
        }
      }
    }
    // CLIENT spans: two per library inside the job, plus two each outside it unless switched off.
    assert.equal(clients.filter((s) => s.parentSpanId === job.spanId).length, 2);
    assert.equal(clients.length, value === 'false' ? 2 : 6);
  });
}

test('a bad TRACEHOOK_HTTP_CLIENT_ROOT_SPANS gives one stderr line and the default', async (t) => {
  const { port, seen } = await recorder(t);
  const result = await run('client-root-app.mjs', { args: [String(port)], env: { TRACEHOOK_SPANS_DIR: spansDir(t), TRACEHOOK_HTTP_CLIENT_ROOT_SPANS: 'no' } });
  assert.equal(result.code, 0);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, /TRACEHOOK_HTTP_CLIENT_ROOT_SPANS="no".*using true/);
  assert.ok(seen['http-1'].traceparent);
});
