// The end of the process loses no ended span and ends as the app would have ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, spansDir, start } from './helpers/fixture.mjs';

const names = (spans) => spans.map((s) => s.name).sort();
const work = (n) => Array.from({ length: n }, (_, i) => `work-${i}`).sort();

test('normal exit: every ended span is written, exit code 0', async (t) => {
  const dir = spansDir(t);
  const { code, signal } = await start('exit-app.mjs', { args: ['normal', '50'], env: { TRACEHOOK_SPANS_DIR: dir } }).done;
  assert.equal(code, 0);
  assert.equal(signal, null);
  assert.deepEqual(names(await readSpans(dir)), work(50));
});

test('process.exit(3): every ended span is written, exit code 3 kept', async (t) => {
  const dir = spansDir(t);
  const { code } = await start('exit-app.mjs', { args: ['exit', '50'], env: { TRACEHOOK_SPANS_DIR: dir } }).done;
  assert.equal(code, 3);
  assert.deepEqual(names(await readSpans(dir)), work(50));
});

test('process.exit() in the turn that ended 1300 spans (two full batches queued, their writing not yet begun): every span is written', async (t) => {
  const dir = spansDir(t);
  // The app exits synchronously after the last span ends: the full batches' drain, scheduled for
  // a later turn, never runs; the exit event writes all 1300.
  const { code } = await start('exit-app.mjs', { args: ['exit', '1300'], env: { TRACEHOOK_SPANS_DIR: dir } }).done;
  assert.equal(code, 3);
  const spans = await readSpans(dir);
  assert.equal(spans.length, 1300);
  assert.deepEqual(names(spans), work(1300));
});

// Issue 29: span files are local, so the exit bound never costs one of their spans: they are written
// synchronously in the exit steps, whatever is left of TRACEHOOK_SHUTDOWN_TIMEOUT_MS (0 here).
for (const [mode, count, endedBy] of [
  ['exit', 1, 3],
  ['normal', 1, 0],
  ['exit', 1300, 3],
  ['wait', 5, 'SIGTERM'],
]) {
  test(`TRACEHOOK_SHUTDOWN_TIMEOUT_MS=0, ${mode === 'wait' ? 'SIGTERM' : mode === 'exit' ? 'process.exit()' : 'the event loop drains'}, ${count} span(s): every span is in the span file, none counted lost`, async (t) => {
    const dir = spansDir(t);
    const app = start('exit-app.mjs', { args: [mode, String(count)], env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '0' } });
    if (mode === 'wait') {
      await app.ready(/ready/);
      app.kill('SIGTERM');
    }
    const { code, signal, stderr } = await app.done;
    assert.equal(typeof endedBy === 'string' ? signal : code, endedBy);
    assert.equal(stderr, '');
    assert.deepEqual(names(await readSpans(dir)), work(count));
  });
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  test(`${signal} with no handler of the app's: spans written, the process still ends by ${signal}`, async (t) => {
    const dir = spansDir(t);
    const app = start('exit-app.mjs', { args: ['wait', '20'], env: { TRACEHOOK_SPANS_DIR: dir } });
    await app.ready(/ready/);
    app.kill(signal);
    const result = await app.done;
    assert.equal(result.signal, signal);
    assert.equal(result.code, null);
    assert.deepEqual(names(await readSpans(dir)), work(20));
  });

  test(`${signal} with the app's own handler: the handler decides the exit code, its spans are kept`, async (t) => {
    const dir = spansDir(t);
    const app = start('exit-app.mjs', { args: ['wait', '20'], env: { TRACEHOOK_SPANS_DIR: dir, FIXTURE_OWN_HANDLER: '7' } });
    await app.ready(/ready/);
    app.kill(signal);
    const result = await app.done;
    assert.equal(result.code, 7);
    assert.equal(result.signal, null);
    assert.deepEqual(names(await readSpans(dir)), [...work(20), `handler-${signal}`].sort());
  });
}

test('an HTTP server with its own SIGTERM handler keeps its exit code', async (t) => {
  const dir = spansDir(t);
  const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, FIXTURE_SIGTERM_EXIT: '42' } });
  const [, port] = await app.ready();
  await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
  app.kill('SIGTERM');
  const { code } = await app.done;
  assert.equal(code, 42);
  assert.equal((await readSpans(dir)).filter((s) => s.kind === 'SERVER').length, 1);
});
