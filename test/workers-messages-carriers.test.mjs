// The carrier of a worker message takes two forms (docs/workers.md): a lone `traceparent` when the
// context holds nothing else, the propagators' fields otherwise. Either way the worker's handler
// runs in the sender's trace, and baggage and tracestate cross exactly when the configured
// propagators carry them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { indexSpans } from './fixtures/workers/spans.mjs';

const APP = 'workers/carrier-forms.mjs';

async function runApp(t, env = {}) {
  const dir = spansDir(t);
  const result = await run(APP, { env: { TRACEHOOK_SPANS_DIR: dir, ...env } });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  const spans = await readSpans(dir);
  return { lines: result.stdout.trim().split('\n'), spans, idx: indexSpans(spans) };
}

/** Every `echo` span runs in a CONSUMER span, child of a PRODUCER span, child of a `sender` span, all in one trace. */
function assertEchoesInSendersTraces({ spans, idx }) {
  const echoes = spans.filter((s) => s.name === 'echo');
  assert.equal(echoes.length, 3);
  for (const echo of echoes) {
    const consumer = idx.parent(echo);
    assert.equal(consumer?.kind, 'CONSUMER');
    const producer = idx.parent(consumer);
    assert.equal(producer?.kind, 'PRODUCER');
    const sender = idx.parent(producer);
    assert.equal(sender?.name, 'sender');
    for (const s of [echo, consumer, producer]) assert.equal(s.traceId, sender.traceId);
  }
  assert.ok(
    echoes.some((e) => e.traceId === 'abcdef0123456789abcdef0123456789'),
    "the remote parent's trace crossed",
  );
}

test('worker_threads: with the default propagators, baggage and tracestate cross with the trace', async (t) => {
  const out = await runApp(t);
  assert.deepEqual(out.lines, ['plain baggage=- tracestate=-', 'baggage baggage=gold tracestate=-', 'tracestate baggage=- tracestate=vendor=abc']);
  assertEchoesInSendersTraces(out);
});

test('worker_threads: OTEL_PROPAGATORS=tracecontext carries the trace and tracestate, never baggage', async (t) => {
  const out = await runApp(t, { OTEL_PROPAGATORS: 'tracecontext' });
  assert.deepEqual(out.lines, ['plain baggage=- tracestate=-', 'baggage baggage=- tracestate=-', 'tracestate baggage=- tracestate=vendor=abc']);
  assertEchoesInSendersTraces(out);
});

test('worker_threads: OTEL_PROPAGATORS=baggage carries baggage and no trace (no traceparent form)', async (t) => {
  const out = await runApp(t, { OTEL_PROPAGATORS: 'baggage' });
  assert.deepEqual(out.lines, ['plain baggage=- tracestate=-', 'baggage baggage=gold tracestate=-', 'tracestate baggage=- tracestate=-']);
  const echoes = out.spans.filter((s) => s.name === 'echo');
  const senders = new Set(out.spans.filter((s) => s.name === 'sender').map((s) => s.traceId));
  assert.equal(echoes.length, 3);
  for (const echo of echoes) assert.ok(!senders.has(echo.traceId), "no worker span joins a sender's trace");
});
