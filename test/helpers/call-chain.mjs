// One traced request through http-app.mjs calling itself (GET /call?port=<own port>) with an
// incoming W3C traceparent: SERVER (child of the caller's span) → CLIENT → SERVER. For the tests
// of each way spans leave the process (OTLP/gRPC, OTLP/HTTP, exporter import path).
import { get, makeTraceparent } from './fixture.mjs';

/** Sends the request to the running http-app.mjs on `port`. @returns the incoming `{ traceId, spanId, traceparent }` */
export async function sendCallChain(assert, port) {
  const incoming = makeTraceparent();
  const res = await get(port, `/call?port=${port}`, { traceparent: incoming.traceparent });
  assert.equal(res.status, 200);
  assert.equal(res.body, 'ok');
  return incoming;
}

/** Asserts the spans of {@link sendCallChain}'s request: ids, parents and kinds. */
export function assertCallChain(assert, spans, incoming) {
  const inTrace = spans.filter((s) => s.traceId === incoming.traceId);
  assert.deepEqual(inTrace.map((s) => s.kind).sort(), ['CLIENT', 'SERVER', 'SERVER'], `three spans in the incoming trace: ${JSON.stringify(spans.map((s) => [s.name, s.kind]))}`);
  const outer = inTrace.find((s) => s.kind === 'SERVER' && s.parentSpanId === incoming.spanId);
  assert.ok(outer, 'the first SERVER span is the child of the incoming traceparent');
  assert.equal(outer.attributes['url.path'], '/call');
  const client = inTrace.find((s) => s.kind === 'CLIENT');
  assert.equal(client.parentSpanId, outer.spanId, 'the CLIENT span is the child of the SERVER span');
  const inner = inTrace.find((s) => s.kind === 'SERVER' && s !== outer);
  assert.equal(inner.parentSpanId, client.spanId, 'the called SERVER span is the child of the CLIENT span');
  assert.equal(inner.attributes['url.path'], '/');
  for (const s of inTrace) assert.match(s.spanId, /^[0-9a-f]{16}$/);
}

/** Resolves when `check()` is true; rejects after `ms` (a generous bound: export is asynchronous). */
export async function waitFor(check, ms = 15000, what = 'the condition') {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
