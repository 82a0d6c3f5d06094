// `tracehook run`: flags become the preload's variables, the app's args and exit code pass through,
// and the preload form (--import or --require) is the one that keeps the app working.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, run } from './helpers/fixture.mjs';

const CLI = join(ROOT, 'bin', 'tracehook.mjs');
const tracehook = (...args) => run(null, { command: [CLI, ...args], env: { TRACEHOOK_SPANS_DIR: join(ROOT, 'node_modules', '.cache', 'spans') } });
const printed = (result) => JSON.parse(result.stdout.trim().split('\n').at(-1));

test('flags set the variables, app args and exit code pass through, --import by default', async () => {
  const result = await tracehook('run', '--sampling-ratio=0.5', '--spans-dir', '/tmp/x', '--exporter-import-path=./p.mjs:make', 'test/fixtures/print-args.cjs', 'a', '--b', '--exit', '5');
  assert.equal(result.code, 5);
  const out = printed(result);
  assert.deepEqual(out.argv, ['a', '--b', '--exit', '5']);
  assert.deepEqual(out.env, { ratio: '0.5', dir: '/tmp/x', exporter: './p.mjs:make' });
  assert.equal(out.execArgv[0], '--import');
  assert.match(out.execArgv[1], /^file:.*\/register\.mjs$/);
});

test('a -r option means the --require form, and node options are kept', async () => {
  const result = await tracehook('run', '-r', './test/fixtures/greeter.cjs', '--no-warnings', 'test/fixtures/print-args.cjs');
  assert.equal(result.code, 0, result.stderr);
  const { execArgv } = printed(result);
  assert.equal(execArgv[0], '--require');
  assert.match(execArgv[1], /\/register\.cjs$/);
  assert.deepEqual(execArgv.slice(2), ['-r', './test/fixtures/greeter.cjs', '--no-warnings']);
});

test('no app: usage error with status 2; --help prints the flags', async () => {
  const bad = await tracehook('run', '--sampling-ratio=1');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no app given/);
  const help = await tracehook('run', '--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--tracing-startup-hook=module:attribute/);
});
