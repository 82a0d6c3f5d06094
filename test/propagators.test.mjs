// OTEL_PROPAGATORS: which propagation formats are read from incoming requests and written to
// outgoing ones (default `tracecontext,baggage`); unknown names give one stderr line and are ignored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertCallChain, sendCallChain } from './helpers/call-chain.mjs';
import { readSpans, spansDir, start } from './helpers/fixture.mjs';

/** http-app.mjs with `env` receives one call chain. @returns `{ incoming, spans, stderr }` */
async function callChain(t, env) {
  const dir = spansDir(t);
  const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, ...env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  const incoming = await sendCallChain(assert, port);
  app.kill('SIGTERM');
  await app.done;
  return { incoming, spans: await readSpans(dir), stderr: app.stderr };
}

for (const value of [undefined, 'tracecontext', 'tracecontext,baggage']) {
  test(`OTEL_PROPAGATORS=${value ?? '(unset)'}: the incoming traceparent is continued and sent on (one trace)`, async (t) => {
    const { incoming, spans, stderr } = await callChain(t, { OTEL_PROPAGATORS: value });
    assert.equal(stderr, '');
    assertCallChain(assert, spans, incoming);
  });
}

for (const [value, line] of [
  ['none', null],
  ['baggage', null],
  ['b3', /^\[tracehook\] config: OTEL_PROPAGATORS="b3" is not valid: expected a list of tracecontext, baggage, none; ignoring b3\n$/],
]) {
  test(`OTEL_PROPAGATORS=${value}: no traceparent read or sent: each SERVER span starts its own trace${line ? '; one line naming the unknown name' : ''}`, async (t) => {
    const { incoming, spans, stderr } = await callChain(t, { OTEL_PROPAGATORS: value });
    if (line) assert.match(stderr, line);
    else assert.equal(stderr, '');
    assert.deepEqual(
      spans.filter((s) => s.traceId === incoming.traceId),
      [],
      'the incoming trace is not continued',
    );
    const servers = spans.filter((s) => s.kind === 'SERVER');
    const [client] = spans.filter((s) => s.kind === 'CLIENT');
    assert.equal(servers.length, 2);
    for (const server of servers) assert.equal(server.parentSpanId, undefined, `${server.attributes['url.path']}: a root span`);
    assert.notEqual(servers[0].traceId, servers[1].traceId, "the callee did not join the caller's trace");
    const outer = servers.find((s) => s.attributes['url.path'] === '/call');
    assert.equal(client.parentSpanId, outer.spanId, 'in the process the context still flows: CLIENT under its SERVER span');
  });
}

test('OTEL_PROPAGATORS=tracecontext,b3: one line for b3, tracecontext still works', async (t) => {
  const { incoming, spans, stderr } = await callChain(t, { OTEL_PROPAGATORS: 'tracecontext,b3' });
  assert.match(stderr, /^\[tracehook\] config: OTEL_PROPAGATORS="tracecontext,b3" is not valid: .*ignoring b3\n$/);
  assertCallChain(assert, spans, incoming);
});
