// Bad configuration: one clear line on stderr naming the variable, the value and what is accepted;
// the app still serves, untraced. Under TRACEHOOK_STRICT=true the process exits 1 before the app.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, readSpans, spansDir, start } from './helpers/fixture.mjs';

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

for (const [variable, value, detail] of CASES) {
  test(`${variable}=${value}: one line naming it, and the app serves untraced`, async (t) => {
    const dir = spansDir(t);
    const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, [variable]: value } });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    assert.equal((await get(port)).body, 'ok');
    app.kill();
    await app.done;
    const lines = app.stderr.trim().split('\n');
    assert.equal(lines.length, 1, app.stderr);
    assert.ok(lines[0].includes(`${variable}=${JSON.stringify(value)}`), lines[0]);
    assert.match(lines[0], /expected /);
    assert.match(lines[0], detail);
    assert.match(lines[0], /the app runs untraced$/);
    assert.deepEqual(await readSpans(dir), []);
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
  test(`${variable}=true loads nothing: no spans, no output, no instrumentation`, async (t) => {
    const dir = spansDir(t);
    const app = start('http-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, [variable]: 'true', TRACEHOOK_SAMPLING_RATIO: 'bad' } });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    assert.equal((await get(port)).body, 'ok');
    app.kill();
    await app.done;
    assert.equal(app.stderr, '');
    assert.deepEqual(await readSpans(dir), []);
  });
}
