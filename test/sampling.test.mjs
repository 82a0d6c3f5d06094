// TRACEHOOK_SAMPLING_RATIO (Ray Serve's sampling_ratio): 0 writes no span, 1 writes every one.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { get, readSpans, spansDir, start } from './helpers/fixture.mjs';

async function serve(t, ratio, requests) {
  const dir = spansDir(t);
  const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_SAMPLING_RATIO: ratio } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  for (let i = 0; i < requests; i++) assert.equal((await get(port, `/?i=${i}`)).body, 'ok');
  app.kill('SIGTERM');
  await app.done;
  return dir;
}

test('sampling ratio 0 writes no span', async (t) => {
  const dir = await serve(t, '0', 20);
  const files = existsSync(dir) ? readdirSync(dir) : [];
  assert.deepEqual(await readSpans(dir), [], `no spans in ${files.join(', ')}`);
});

test('sampling ratio 1 writes a span for every request', async (t) => {
  const dir = await serve(t, '1', 20);
  const servers = (await readSpans(dir)).filter((s) => s.kind === 'SERVER');
  assert.equal(servers.length, 20);
  assert.equal(new Set(servers.map((s) => s.traceId)).size, 20);
  assert.deepEqual(servers.map((s) => s.attributes['url.query']).sort(), Array.from({ length: 20 }, (_, i) => `i=${i}`).sort());
});

test('OTEL_TRACES_SAMPLER=always_off is honoured when TRACEHOOK_SAMPLING_RATIO is not set', async (t) => {
  const dir = spansDir(t);
  const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_TRACES_SAMPLER: 'always_off' } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  await get(port);
  app.kill();
  await app.done;
  assert.deepEqual(await readSpans(dir), []);
});
