// Configuration read per the OpenTelemetry specification: OTEL_TRACES_EXPORTER is a list, and every boolean
// variable is `true`/`false` case-insensitive, with one stderr line for any other value (and its default taken).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { assertTracingOn, loadedState } from './helpers/loaded-state.mjs';

const NAMES = ['work-0', 'work-1'];

test('OTEL_TRACES_EXPORTER=console,file: every span on stdout and in the span files', async (t) => {
  const dir = spansDir(t);
  const { code, stdout, stderr } = await run('exit-app.mjs', { args: ['normal', '2'], env: { TRACEHOOK_SPANS_DIR: dir, OTEL_TRACES_EXPORTER: 'console, file' } });
  assert.equal(code, 0);
  assert.equal(stderr, '');
  for (const name of NAMES) assert.match(stdout, new RegExp(`name: '${name}'`));
  assert.deepEqual((await readSpans(dir)).map((s) => s.name).sort(), NAMES);
});

test('OTEL_TRACES_EXPORTER=file,bogus: one line naming the unknown exporter, the known ones still run', async (t) => {
  const dir = spansDir(t);
  const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '2'], env: { TRACEHOOK_SPANS_DIR: dir, OTEL_TRACES_EXPORTER: 'file,bogus' } });
  assert.equal(code, 0);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
  assert.match(stderr, /OTEL_TRACES_EXPORTER="file,bogus".*ignoring bogus/);
  assert.deepEqual((await readSpans(dir)).map((s) => s.name).sort(), NAMES);
});

test('OTEL_TRACES_EXPORTER=none: no span file and nothing printed (control: file writes the same spans)', async (t) => {
  const dir = spansDir(t);
  const control = spansDir(t);
  const [none, file] = await Promise.all([
    run('exit-app.mjs', { args: ['normal', '2'], env: { TRACEHOOK_SPANS_DIR: dir, OTEL_TRACES_EXPORTER: 'none' } }),
    run('exit-app.mjs', { args: ['normal', '2'], env: { TRACEHOOK_SPANS_DIR: control, OTEL_TRACES_EXPORTER: 'file' } }),
  ]);
  assert.deepEqual([none.code, none.stdout, none.stderr], [0, '', '']);
  assert.equal(file.code, 0, file.stderr);
  assert.deepEqual(await readSpans(dir), []);
  assert.deepEqual((await readSpans(control)).map((s) => s.name).sort(), NAMES);
});

for (const value of ['TRUE', ' true ', 'True']) {
  test(`TRACEHOOK_DISABLED=${JSON.stringify(value)}: disabled (nothing loaded, no span), nothing printed; control: tracing on without it`, async (t) => {
    const [control, off] = await Promise.all([loadedState(t), loadedState(t, { TRACEHOOK_DISABLED: value })]);
    assertTracingOn(assert, control);
    assert.equal(off.code, 0);
    assert.equal(off.stderr, '');
    assert.deepEqual(off.modules, []);
    assert.equal(off.recording, false);
    assert.deepEqual(off.spans, []);
  });
}

for (const [variable, value] of [
  ['TRACEHOOK_DISABLED', 'yes'],
  ['TRACEHOOK_DISABLED', '1'],
  ['OTEL_SDK_DISABLED', 'on'],
  ['TRACEHOOK_STRICT', 'yes'],
]) {
  test(`${variable}=${value}: one line naming it (the specification's booleans are true/false), tracing stays on`, async (t) => {
    const dir = spansDir(t);
    const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '2'], env: { TRACEHOOK_SPANS_DIR: dir, [variable]: value } });
    assert.equal(code, 0);
    const lines = stderr.trim().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.ok(lines[0].includes(`${variable}=${JSON.stringify(value)}`), lines[0]);
    assert.match(lines[0], /`true` or `false` \(case-insensitive\); using false/);
    assert.deepEqual((await readSpans(dir)).map((s) => s.name).sort(), NAMES);
  });
}

test('TRACEHOOK_MESSAGING_SPANS=FALSE is accepted without a line; TRACEHOOK_MESSAGING_SPANS=no gives one line and keeps the default (true)', async (t) => {
  const quiet = await run('exit-app.mjs', { args: ['normal', '1'], env: { TRACEHOOK_SPANS_DIR: spansDir(t), TRACEHOOK_MESSAGING_SPANS: 'FALSE' } });
  assert.equal(quiet.stderr, '');
  const noisy = await run('exit-app.mjs', { args: ['normal', '1'], env: { TRACEHOOK_SPANS_DIR: spansDir(t), TRACEHOOK_MESSAGING_SPANS: 'no' } });
  assert.match(noisy.stderr, /TRACEHOOK_MESSAGING_SPANS="no".*using true/);
});
