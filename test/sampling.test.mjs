// TRACEHOOK_SAMPLING_RATIO (Ray Serve's sampling_ratio): 0 writes no span, 1 writes every one.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { get, readSpans, spansDir, start } from './helpers/fixture.mjs';

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
  assert.deepEqual((await readSpans(on)).map((s) => s.kind), ['SERVER']);
});
