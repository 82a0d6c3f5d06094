// `tracehook run`: flags become the preload's variables, the app's args and exit code pass through,
// and the preload form (--import or --require) is the one that keeps the app working.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

// A -r TypeScript hook (ts-node/register and the like) compiles the entry only on the CommonJS loader: any --import
// sends it through the ESM loader instead, on every Node.js version (20: ERR_UNKNOWN_FILE_EXTENSION; 22+: Node's own
// type stripping, which rejects an enum). So the --require form, on every version (issue 29, item 13c).
test('a -r TypeScript hook with a .ts entry: --import breaks it, --require and `tracehook run` keep it working', async (t) => {
  // Outside this repository's `"type": "module"` scope, which would make the entry an ES module even untraced.
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-ts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ['ts-register-like.cjs', 'enum-app.ts']) copyFileSync(join(ROOT, 'test', 'fixtures', file), join(dir, file));
  const hook = ['-r', join(dir, 'ts-register-like.cjs')];
  const app = join(dir, 'enum-app.ts');
  const untraced = await run(null, { command: [...hook, app] });
  assert.equal(untraced.stdout, 'ran 1 0\n', untraced.stderr);
  const imported = await run(null, { command: ['--import', 'data:text/javascript,', ...hook, app] });
  assert.notEqual(imported.code, 0);
  assert.match(imported.stderr, /ERR_UNKNOWN_FILE_EXTENSION|ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX/);
  const required = await run(null, { command: ['--require', join(ROOT, 'register.cjs'), ...hook, app] });
  assert.deepEqual([required.code, required.stdout, required.stderr], [0, 'ran 1 0\n', '']);
  const viaRun = await tracehook('run', ...hook, app);
  assert.deepEqual([viaRun.code, viaRun.stdout, viaRun.stderr], [0, 'ran 1 0\n', '']);
});

test('no app: usage error with status 2; --help prints the flags', async () => {
  const bad = await tracehook('run', '--sampling-ratio=1');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no app given/);
  const help = await tracehook('run', '--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--tracing-startup-hook=module:attribute/);
});
