// Sampling: TRACEHOOK_SAMPLING_RATIO (Ray Serve's sampling_ratio, parent-based) and the standard
// OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG; the ratio wins when both are set.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { get, makeTraceparent, readSpans, spansDir, start } from './helpers/fixture.mjs';

async function serve(t, ratio, requests, env = {}) {
  const dir = spansDir(t);
  const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_SAMPLING_RATIO: ratio, ...env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  for (let i = 0; i < requests; i++) assert.equal((await get(port, `/?i=${i}`)).body, 'ok');
  app.kill('SIGTERM');
  await app.done;
  return dir;
}

test('sampling ratio 0 writes no span, where ratio 1 (the same app and requests) writes a span for every request', async (t) => {
  const [none, every] = await Promise.all([serve(t, '0', 20), serve(t, '1', 20)]);
  const files = existsSync(none) ? readdirSync(none) : [];
  assert.deepEqual(await readSpans(none), [], `no spans in ${files.join(', ')}`);
  const servers = (await readSpans(every)).filter((s) => s.kind === 'SERVER');
  assert.equal(servers.length, 20);
  assert.equal(new Set(servers.map((s) => s.traceId)).size, 20);
  assert.deepEqual(servers.map((s) => s.attributes['url.query']).sort(), Array.from({ length: 20 }, (_, i) => `i=${i}`).sort());
});

test('OTEL_TRACES_SAMPLER=always_off is honoured when TRACEHOOK_SAMPLING_RATIO is not set (control: always_on traces the same request)', async (t) => {
  const [off, on] = await Promise.all([serve(t, undefined, 1, { OTEL_TRACES_SAMPLER: 'always_off' }), serve(t, undefined, 1, { OTEL_TRACES_SAMPLER: 'always_on' })]);
  assert.deepEqual(await readSpans(off), []);
  assert.deepEqual(
    (await readSpans(on)).map((s) => s.kind),
    ['SERVER'],
  );
});

// Which of three requests are traced: one with no traceparent (a root), one whose incoming parent is
// sampled (flags 01), one whose parent is not (flags 00). Parent-based samplers follow the parent.
const SAMPLERS = [
  [{ TRACEHOOK_SAMPLING_RATIO: '0' }, { root: false, sampledParent: true, unsampledParent: false }],
  [
    { TRACEHOOK_SAMPLING_RATIO: '1', OTEL_TRACES_SAMPLER: 'always_off' },
    { root: true, sampledParent: true, unsampledParent: false },
  ],
  [{}, { root: true, sampledParent: true, unsampledParent: false }],
  [{ OTEL_TRACES_SAMPLER: 'always_on' }, { root: true, sampledParent: true, unsampledParent: true }],
  [
    { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
    { root: false, sampledParent: false, unsampledParent: false },
  ],
  [
    { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
    { root: false, sampledParent: true, unsampledParent: false },
  ],
  [
    { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' },
    { root: true, sampledParent: true, unsampledParent: false },
  ],
  [{ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, { root: false, sampledParent: true, unsampledParent: false }],
];

for (const [env, expected] of SAMPLERS) {
  const name =
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'no sampler variable';
  test(`${name}: root traced ${expected.root}, under a sampled parent ${expected.sampledParent}, under an unsampled parent ${expected.unsampledParent}`, async (t) => {
    const dir = spansDir(t);
    const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, ...env } });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    const sampled = makeTraceparent(true);
    const unsampled = makeTraceparent(false);
    assert.equal((await get(port, '/?r=root')).body, 'ok');
    assert.equal((await get(port, '/?r=sampled', { traceparent: sampled.traceparent })).body, 'ok');
    assert.equal((await get(port, '/?r=unsampled', { traceparent: unsampled.traceparent })).body, 'ok');
    app.kill('SIGTERM');
    await app.done;
    const servers = (await readSpans(dir)).filter((s) => s.kind === 'SERVER');
    const traced = (query, traceId) => servers.some((s) => s.attributes['url.query'] === query && (traceId === undefined || (s.traceId === traceId && s.parentSpanId !== undefined)));
    assert.deepEqual({ root: traced('r=root'), sampledParent: traced('r=sampled', sampled.traceId), unsampledParent: traced('r=unsampled', unsampled.traceId) }, expected);
    assert.equal(servers.length, Object.values(expected).filter(Boolean).length);
  });
}
