// TRACEHOOK_INCOMING_TRACE: continue (default) | link | ignore, with real requests carrying a
// traceparent (not sampled), tracestate and baggage, in both HTTP server instrumentations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, makeTraceparent, readSpans, spansDir, start } from './helpers/fixture.mjs';

for (const mode of ['fast', 'stock']) {
  for (const policy of [undefined, 'continue', 'link', 'ignore']) {
    test(`${mode}: TRACEHOOK_INCOMING_TRACE=${policy ?? '(unset)'}`, async (t) => {
      const dir = spansDir(t);
      const env = { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: mode, TRACEHOOK_INCOMING_TRACE: policy };
      const app = start('request-data-app.mjs', { env });
      t.after(() => app.kill('SIGKILL'));
      const [, port] = await app.ready();
      // Sampled: continued, it is recorded; not sampled, only a new root records it.
      const sampled = policy === 'link' || policy === 'ignore' ? false : true;
      const incoming = makeTraceparent(sampled);
      const headers = { traceparent: incoming.traceparent, tracestate: 'caller=x1', baggage: 'user=alice,tier=gold' };
      const baggage = JSON.parse((await get(port, '/baggage', headers)).body);
      app.kill('SIGTERM');
      const { stderr } = await app.done;
      assert.equal(stderr, '', 'no diagnostics');
      const servers = (await readSpans(dir)).filter((s) => s.kind === 'SERVER');
      assert.equal(servers.length, 1, 'the SERVER span is recorded (for link and ignore although the caller did not sample)');
      const [server] = servers;
      if (policy === undefined || policy === 'continue') {
        assert.equal(server.traceId, incoming.traceId);
        assert.equal(server.parentSpanId, incoming.spanId);
        assert.equal(server.traceState, 'caller=x1');
        assert.deepEqual(server.links, []);
        assert.deepEqual(baggage, { user: 'alice', tier: 'gold' });
        return;
      }
      assert.notEqual(server.traceId, incoming.traceId, 'a new trace');
      assert.equal(server.parentSpanId, undefined, 'a root span');
      assert.equal(server.traceState, undefined);
      assert.deepEqual(baggage, {}, 'incoming baggage dropped');
      if (policy === 'ignore') assert.deepEqual(server.links, []);
      else {
        assert.equal(server.links.length, 1, 'one link to the caller');
        assert.equal(server.links[0].traceId, incoming.traceId);
        assert.equal(server.links[0].spanId, incoming.spanId);
        assert.equal(server.links[0].traceState, 'caller=x1');
      }
    });
  }
}

test('a bad TRACEHOOK_INCOMING_TRACE gives one stderr line and the default', async (t) => {
  const dir = spansDir(t);
  const app = start('request-data-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_INCOMING_TRACE: 'drop' } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  const incoming = makeTraceparent();
  await get(port, '/', { traceparent: incoming.traceparent });
  app.kill('SIGTERM');
  const { stderr } = await app.done;
  assert.equal(stderr.trim().split('\n').length, 1);
  assert.match(stderr, /TRACEHOOK_INCOMING_TRACE="drop" is not valid: expected `continue`, `link` or `ignore`; using continue/);
  const [server] = (await readSpans(dir)).filter((s) => s.kind === 'SERVER');
  assert.equal(server.traceId, incoming.traceId);
});
