// The startup hook is bounded and runs before the app's first line: a hook or exporter import path
// that never settles costs one stderr line and the app starts untraced (exit 1 under
// TRACEHOOK_STRICT), and a hook that registers its provider synchronously traces the app's first
// spans under --require as under --import.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

const HOOKS = './test/fixtures/hooks/startup-hooks.mjs';
const PRELOADS = { import: ['--import', '@tracehook/register'], require: ['--require', '@tracehook/register'] };
const LINE =
  /^\[tracehook\] config: (TRACEHOOK_STARTUP_HOOK|TRACEHOOK_EXPORTER_IMPORT_PATH)="[^"]+" is not valid: expected a hook that settles in time \(it did not settle within 200 ms, TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS\); (the app runs untraced|TRACEHOOK_STRICT is set: exiting with status 1)\n$/;

for (const [variable, value] of [
  ['TRACEHOOK_STARTUP_HOOK', `${HOOKS}:never`],
  ['TRACEHOOK_EXPORTER_IMPORT_PATH', `${HOOKS}:neverProcessors`],
]) {
  test(`${variable} that never settles: one line naming it and the bound, the app runs untraced (exit 1 under TRACEHOOK_STRICT)`, async (t) => {
    // The app runs 300 ms: longer than the bound, so under --require the bound is reached while it runs.
    const untraced = await run('exit-bounded-app.mjs', { preload: [], args: ['3'] });
    assert.deepEqual([untraced.code, untraced.stdout], [0, 'work done\ncleanup done\n']);
    for (const [name, preload] of Object.entries(PRELOADS)) {
      const dir = spansDir(t);
      const env = { [variable]: value, TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS: '200', TRACEHOOK_SPANS_DIR: dir };
      const traced = await run('exit-bounded-app.mjs', { preload, args: ['3'], env });
      assert.deepEqual([traced.code, traced.signal, traced.stdout], [0, null, untraced.stdout], name);
      assert.match(traced.stderr, LINE, name);
      assert.match(traced.stderr, new RegExp(`^\\[tracehook\\] config: ${variable}=.*the app runs untraced\\n$`), name);
      assert.deepEqual(await readSpans(dir), [], name);

      const strict = await run('exit-bounded-app.mjs', { preload, args: ['3'], env: { ...env, TRACEHOOK_STRICT: 'true' } });
      assert.equal(strict.code, 1, name);
      assert.match(strict.stderr, LINE, name);
      assert.match(strict.stderr, /TRACEHOOK_STRICT is set: exiting with status 1\n$/, name);
      // Under --import the app never started; under --require it had started and is ended.
      if (name === 'import') assert.equal(strict.stdout, '', name);
    }
  });
}

test('a bad TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS: one line, the default bound, tracing on', async (t) => {
  const dir = spansDir(t);
  const { code, stderr } = await run('exit-app.mjs', { args: ['normal', '3'], env: { TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS: 'soon', TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(code, 0);
  assert.equal(stderr, '[tracehook] config: TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS="soon" is not valid: expected a whole number of ms > 0; using 3000\n');
  assert.equal((await readSpans(dir)).length, 3);
});

const WORK = ['work-0', 'work-1', 'work-2'];
for (const [what, hook] of [
  ['a synchronous .cjs hook', './test/fixtures/hooks/sync-hook.cjs:setup'],
  ['a synchronous .mjs hook', `${HOOKS}:sync`],
  ['an async hook that registers its provider before its first await', `${HOOKS}:asyncFirst`],
]) {
  test(`${what}: every span from the app's first line is kept, under --require as under --import`, async (t) => {
    for (const [name, preload] of Object.entries(PRELOADS)) {
      const dir = spansDir(t);
      const { code } = await run('exit-app.mjs', { preload, args: ['normal', '3'], env: { TRACEHOOK_STARTUP_HOOK: hook, TRACEHOOK_SPANS_DIR: dir } });
      assert.equal(code, 0, name);
      assert.deepEqual((await readSpans(dir)).map((s) => s.name).sort(), WORK, name);
    }
  });
}

test("the built-in console hook: every span from the app's first line is printed, under --require as under --import", async () => {
  for (const [name, preload] of Object.entries(PRELOADS)) {
    const { code, stdout } = await run('exit-app.mjs', { preload, args: ['normal', '3'], env: { TRACEHOOK_STARTUP_HOOK: 'console' } });
    assert.equal(code, 0, name);
    assert.deepEqual([...stdout.matchAll(/name: '(work-\d)'/g)].map((m) => m[1]).sort(), WORK, name);
  }
});
