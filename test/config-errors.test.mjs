// Bad configuration: one clear line on stderr naming the variable, the value and what is accepted;
// the app still serves, untraced. Under TRACEHOOK_STRICT=true the process exits 1 before the app.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, readSpans, spansDir, start } from './helpers/fixture.mjs';
import { assertTracingOn, loadedState } from './helpers/loaded-state.mjs';

const BAD = './test/fixtures/hooks/bad-hooks.mjs';

const CASES = [
  ['TRACEHOOK_STARTUP_HOOK', './test/fixtures/hooks/missing.mjs:setup', /a module that can be imported/],
  ['TRACEHOOK_STARTUP_HOOK', `${BAD}:nothingHere`, /exports `nothingHere`/],
  ['TRACEHOOK_STARTUP_HOOK', `${BAD}:notAFunction`, /an attribute that is a function.*it is number/],
  ['TRACEHOOK_STARTUP_HOOK', 'no-colon-here', /`module:attribute`/],
  ['TRACEHOOK_STARTUP_HOOK', `${BAD}:throws`, /it threw: hook exploded/],
  ['TRACEHOOK_SAMPLING_RATIO', '1.5', /a number in \[0, 1\]/],
  ['TRACEHOOK_SAMPLING_RATIO', 'half', /a number in \[0, 1\]/],
  ['TRACEHOOK_EXPORTER_IMPORT_PATH', `${BAD}:withParams`, /declares 1 parameter/],
  ['TRACEHOOK_EXPORTER_IMPORT_PATH', `${BAD}:notArray`, /it returned object/],
  ['TRACEHOOK_EXPORTER_IMPORT_PATH', `${BAD}:badItem`, /item 0 has no forceFlush\/shutdown/],
  ['TRACEHOOK_EXPORTER_IMPORT_PATH', `${BAD}:notAFunction`, /an attribute that is a function/],
];

/** http-app.mjs under the preload with `env`, one GET /, then SIGTERM. @returns `{ stderr, spans }` */
async function serveOnce(t, env) {
  const dir = spansDir(t);
  const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, ...env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  assert.equal((await get(port)).body, 'ok');
  app.kill();
  await app.done;
  return { stderr: app.stderr, spans: await readSpans(dir) };
}

for (const [variable, value, detail] of CASES) {
  test(`${variable}=${value}: one line naming it, and the app serves untraced (control: without it, the same request is traced)`, async (t) => {
    const [control, bad] = await Promise.all([serveOnce(t, {}), serveOnce(t, { [variable]: value })]);
    assert.equal(control.stderr, '');
    assert.deepEqual(
      control.spans.map((s) => s.kind),
      ['SERVER'],
      'control: the request made a SERVER span',
    );
    const lines = bad.stderr.trim().split('\n');
    assert.equal(lines.length, 1, bad.stderr);
    assert.ok(lines[0].includes(`${variable}=${JSON.stringify(value)}`), lines[0]);
    assert.match(lines[0], /expected /);
    assert.match(lines[0], detail);
    assert.match(lines[0], /the app runs untraced$/);
    assert.deepEqual(bad.spans, []);
  });

  test(`${variable}=${value} under TRACEHOOK_STRICT=true: exit 1 before the app starts`, async () => {
    const { code, stdout, stderr } = await start('http-app.mjs', { env: { [variable]: value, TRACEHOOK_STRICT: 'true' } }).done;
    assert.equal(code, 1);
    assert.equal(stdout, '', 'the app did not start');
    assert.match(stderr, /TRACEHOOK_STRICT is set: exiting with status 1/);
  });
}

test('a hook that registers no TracerProvider: a warning, the app serves', async (t) => {
  const app = start('http-app.mjs', { env: { TRACEHOOK_STARTUP_HOOK: `${BAD}:registersNothing` } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  assert.equal((await get(port)).body, 'ok');
  app.kill();
  await app.done;
  assert.match(app.stderr, /registered no TracerProvider/);
});

for (const variable of ['TRACEHOOK_DISABLED', 'OTEL_SDK_DISABLED']) {
  test(`${variable}=true loads nothing: no tracehook module, no OpenTelemetry global, no instrumentation, no spans, no output (control: the same probe with tracing on)`, async (t) => {
    assertTracingOn(assert, await loadedState(t));
    // A bad ratio beside it: the configuration is not even read.
    const off = await loadedState(t, { [variable]: 'true', TRACEHOOK_SAMPLING_RATIO: 'bad' });
    assert.equal(off.code, 0);
    assert.equal(off.stderr, '');
    assert.deepEqual(off.modules, [], 'no module of tracehook, OpenTelemetry or import-in-the-middle loaded');
    assert.deepEqual(off.symbols, [], 'no tracehook state, no OpenTelemetry API global');
    assert.equal(off.recording, false, 'the OpenTelemetry API is the no-op: spans do not record');
    assert.equal(off.httpPatched, false, 'HTTP servers untouched');
    assert.deepEqual(off.spans, []);
  });

  test(`${variable}=true with --require: neither the bundle nor OpenTelemetry is loaded, nothing is patched (control: tracing on)`, async (t) => {
    const preload = ['--require', '@tracehook/register'];
    assertTracingOn(assert, await loadedState(t, {}, preload));
    const off = await loadedState(t, { [variable]: 'true', TRACEHOOK_SAMPLING_RATIO: 'bad' }, preload);
    assert.equal(off.code, 0);
    assert.equal(off.stderr, '');
    // register.cjs tests the disable switches inline, before it loads any file (dist/preload/load-bundle.js included).
    assert.deepEqual(
      off.modules.filter((m) => m.startsWith('dist/') || m.includes('node_modules')),
      [],
    );
    assert.deepEqual(off.symbols, []);
    assert.equal(off.recording, false);
    assert.equal(off.httpPatched, false);
    assert.deepEqual(off.spans, []);
  });
}
