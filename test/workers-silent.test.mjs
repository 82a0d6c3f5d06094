// The preload prints nothing the app would not have printed: no deprecation or experimental
// warning under --pending-deprecation, --throw-deprecation, --trace-warnings, --trace-deprecation
// or --no-deprecation (with --throw-deprecation one would even end the app), in the main thread,
// a worker thread or a forked child, and nothing at all on stderr with a valid configuration.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run, spansDir } from './helpers/fixture.mjs';

const APP = 'workers/silent-app.mjs';
const FLAGS = [['--pending-deprecation'], ['--pending-deprecation', '--throw-deprecation'], ['--throw-deprecation'], ['--trace-warnings'], ['--trace-deprecation'], ['--no-deprecation']];

for (const flags of FLAGS) {
  test(`${flags.join(' ')}: an http + worker + child app prints exactly what it prints untraced, and nothing on stderr`, async (t) => {
    const runs = [[], ['--import', '@tracehook/register'], ['--require', '@tracehook/register']].map((preload) =>
      run(APP, { preload: [...flags, ...preload], env: { TRACEHOOK_SPANS_DIR: spansDir(t) } }),
    );
    const [plain, ...traced] = await Promise.all(runs);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stderr, '');
    assert.match(plain.stdout, /^http 200 hello \/x\nworker said: worker child in .*\nchild said: fork child in .*, exit 0\napi function\n$/);
    for (const result of traced) {
      assert.equal(result.stderr, '');
      assert.equal(result.code, plain.code);
      assert.equal(result.signal, plain.signal);
      assert.equal(result.stdout, plain.stdout);
    }
  });
}

// import-in-the-middle's loader goes through module.register(), which Node 26 deprecates (DEP0205):
// the app must not see that warning, and under --throw-deprecation it must not end the app.
test('TRACEHOOK_ESM_LOADER=true under --throw-deprecation and --pending-deprecation: the app runs and prints exactly what it prints untraced', async (t) => {
  const flags = ['--throw-deprecation', '--pending-deprecation'];
  const env = { TRACEHOOK_SPANS_DIR: spansDir(t), TRACEHOOK_ESM_LOADER: 'true' };
  const [plain, traced] = await Promise.all([run(APP, { preload: flags, env }), run(APP, { preload: [...flags, '--import', '@tracehook/register'], env })]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(traced.stderr, '');
  assert.equal(traced.code, plain.code);
  assert.equal(traced.stdout, plain.stdout);
});
