// `tracehook run`: flags become the preload's variables, the app's args and exit code pass through,
// and the preload form (--import or --require) is the one that keeps the app working; signals reach the app
// once, and the wrapper never ends before it.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, ROOT, run, start } from './helpers/fixture.mjs';
import { missing } from './helpers/needs.mjs';

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

// Issue 29 item 11. In a terminal, Ctrl-C goes to the whole foreground process group, the app included:
// the wrapper must not pass a second SIGINT on (a "press again to force quit" app quit at once).
// script(1) gives the wrapper a real terminal, and the Ctrl-C is a real ^C typed into it.
const noScript = spawnSync('script', ['--version']).status === 0 ? false : missing('needs script(1): apt-get install bsdutils');
test('in a terminal, Ctrl-C reaches the app once; SIGTERM still passes through', { skip: noScript }, async () => {
  const line = 'exec ' + [process.execPath, CLI, 'run', join(FIXTURES, 'sigint-count-app.mjs')].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qfec', line, '/dev/null'], { cwd: ROOT, env: { ...process.env, SHELL: '/bin/sh', NODE_OPTIONS: '' } });
  let out = '';
  const seen = (pattern) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const m = out.match(pattern);
        if (m) resolve(m);
        else if (child.exitCode !== null) reject(new Error(`ended before ${pattern}: ${out}`));
        else child.stdout.once('data', check);
      };
      check();
    });
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  const closed = new Promise((resolve) => child.on('close', resolve));
  const guard = setTimeout(() => child.kill('SIGKILL'), 30000);
  try {
    const [, , wrapperPid] = await seen(/ready (\d+) (\d+)/);
    child.stdin.write('\x03');
    await seen(/sigint 1/);
    // The wrapper handles its signals in order: had it passed the SIGINT on, the app would see it before this SIGTERM.
    process.kill(Number(wrapperPid), 'SIGTERM');
    const [, count] = await seen(/sigints (\d+)/);
    assert.equal(count, '1', out);
    assert.equal(await closed, 0, out);
  } finally {
    clearTimeout(guard);
    child.stdin.end();
  }
});

// Issue 29 item 11: SIGQUIT and SIGUSR2 used to end the wrapper alone, leaving the app running under pid 1.
for (const signal of ['SIGQUIT', 'SIGUSR2']) {
  test(`${signal} sent to the wrapper reaches the app, and the wrapper ends as the app does`, async () => {
    // A new session: no controlling terminal, as under a process manager.
    const wrapper = start(null, { command: [CLI, 'run', 'test/fixtures/sigint-count-app.mjs'], detached: true, timeoutMs: 30000 });
    const [, appPid] = await wrapper.ready(/ready (\d+) (\d+)/);
    const ended = new Promise((resolve) => wrapper.child.on('exit', (code, sig) => resolve(sig)));
    process.kill(wrapper.child.pid, signal);
    const wrapperSignal = await ended;
    // 'exit', not the helper's 'close': an orphaned app would hold the stdout pipe open.
    const orphaned = alive(Number(appPid));
    if (orphaned) process.kill(Number(appPid), 'SIGKILL');
    assert.equal(orphaned, false, 'the app outlived the wrapper');
    assert.equal(wrapperSignal, signal);
    assert.equal((await wrapper.done).signal, signal);
  });
}

test('SIGINT sent to the wrapper outside a terminal reaches the app', async () => {
  const wrapper = start(null, { command: [CLI, 'run', 'test/fixtures/sigint-count-app.mjs'], detached: true, timeoutMs: 30000 });
  await wrapper.ready(/ready/);
  wrapper.kill('SIGINT');
  await wrapper.ready(/sigint 1/);
  wrapper.kill('SIGTERM');
  const result = await wrapper.done;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /sigints 1/);
});

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
