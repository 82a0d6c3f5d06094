// TRACEHOOK_TRACER selects who makes spans: `lean` (default) or the SDK's own tracer (`stock`). Both give valid,
// unique W3C ids across many spans (the lean ids come from a pooled random buffer, refilled every ≈ 170 spans),
// the same sampling of an unsampled remote parent and the same treatment of an invalid parent; a bad value is
// one stderr line and the lean tracer. Field-by-field equality with the SDK's spans: user-processors.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

const ROOTS = 600;

async function idsRun(t, env) {
  const dir = spansDir(t);
  const app = await run('lean-span-ids.mjs', { args: [String(ROOTS)], env: { TRACEHOOK_SPANS_DIR: dir, ...env } });
  assert.equal(app.code, 0, app.stderr);
  const [unsampled, invalid] = app.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { spans: await readSpans(dir), unsampled, invalid, stderr: app.stderr };
}

function checkIds({ spans, unsampled, invalid }, spanClass) {
  assert.equal(invalid.class, spanClass);
  assert.equal(spans.length, 2 * ROOTS + 1);
  for (const s of spans) {
    assert.match(s.traceId, /^[0-9a-f]{32}$/);
    assert.match(s.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(s.traceId, '0'.repeat(32));
    assert.notEqual(s.spanId, '0'.repeat(16));
  }
  assert.equal(new Set(spans.map((s) => s.spanId)).size, spans.length, 'span ids are unique');
  const roots = spans.filter((s) => s.name.startsWith('root '));
  assert.equal(new Set(roots.map((s) => s.traceId)).size, ROOTS, 'each root span starts its own trace');
  const byName = new Map(spans.map((s) => [s.name, s]));
  for (let i = 0; i < ROOTS; i++) {
    const root = byName.get(`root ${i}`);
    const child = byName.get(`child ${i}`);
    assert.equal(root.parentSpanId, undefined);
    assert.deepEqual([child.traceId, child.parentSpanId], [root.traceId, root.spanId]);
  }
  // A child of an unsampled remote parent records nothing and carries the parent's trace on, unsampled.
  assert.deepEqual(unsampled, { recording: false, traceId: '0af7651916cd43dd8448eb211c80319c', traceFlags: 0, class: 'NonRecordingSpan' });
  // An invalid parent context is ignored: a new root.
  assert.equal(invalid.parent, null);
  assert.match(invalid.freshTraceId, /^[0-9a-f]{32}$/);
  assert.equal(byName.get('invalid parent').traceId, invalid.freshTraceId);
}

test('lean (default) and stock tracers: valid unique W3C ids over many spans, parents, unsampled and invalid parents', async (t) => {
  const lean = await idsRun(t, {});
  checkIds(lean, 'LeanSpan');
  const stock = await idsRun(t, { TRACEHOOK_TRACER: 'stock' });
  checkIds(stock, 'SpanImpl');
  assert.equal(lean.stderr, '');
  assert.equal(stock.stderr, '');
});

test('TRACEHOOK_TRACER with a bad value: one stderr line naming it and what is accepted; spans are still made (lean)', async (t) => {
  const run = await idsRun(t, { TRACEHOOK_TRACER: 'fastest' });
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /TRACEHOOK_TRACER/);
  assert.match(lines[0], /fastest/);
  assert.match(lines[0], /`lean` or `stock`; using lean/);
  checkIds(run, 'LeanSpan');
});
