// Children and workers start from any directory, whatever form the preload came in: each loads it
// from an absolute location (a bare or relative one would be resolved from the child's working
// directory), and the app's output and exit are exactly those of the same app run untraced. A
// child in which the preload cannot load runs as untraced.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readSpans, ROOT, run, spansDir } from './helpers/fixture.mjs';

const APP = 'workers/any-directory.cjs';
const CASES = 8;
// Eight children start one after the other: on a loaded machine that takes a while.
const TIMEOUT_MS = 90_000;

/** Spans each kind of child makes when the preload reached it, for a preload given as a flag. */
const TRACED_BY_FLAG = { 'fork child': 2, 'spawn child': 1, 'spawnSync child': 1, 'worker child': 3 };

const FORMS = [
  { name: '--import @tracehook/register', preload: ['--import', '@tracehook/register'] },
  { name: '--import=@tracehook/register', preload: ['--import=@tracehook/register'] },
  { name: '--import ./register.mjs (relative)', preload: ['--import', './register.mjs'] },
  { name: '-r @tracehook/register', preload: ['-r', '@tracehook/register'] },
  { name: '--require=./register.cjs (relative)', preload: ['--require=./register.cjs'] },
  { name: '--max-old-space-size before --import (a flag workers reject)', preload: ['--max-old-space-size=512', '--import', '@tracehook/register'], copiedExecArgvThrows: true },
  { name: 'NODE_OPTIONS=--import @tracehook/register', preload: [], nodeOptions: '--import @tracehook/register' },
  { name: 'NODE_OPTIONS=-r ./register.cjs (relative)', preload: [], nodeOptions: '-r ./register.cjs' },
];

let untraced;
async function untracedRun() {
  untraced ??= run(APP, { preload: [], timeoutMs: TIMEOUT_MS });
  return untraced;
}

for (const form of FORMS) {
  test(`${form.name}: fork/spawn/exec with another cwd, or after process.chdir(), and new Worker() after it, run as untraced and are traced`, async (t) => {
    const dir = spansDir(t);
    const env = { TRACEHOOK_SPANS_DIR: dir, ...(form.nodeOptions ? { NODE_OPTIONS: form.nodeOptions } : {}) };
    const [plain, traced] = await Promise.all([untracedRun(), run(APP, { preload: form.preload, env, timeoutMs: TIMEOUT_MS })]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout.split('\n').filter(Boolean).length, CASES);
    if (form.copiedExecArgvThrows) {
      // The app itself copies process.execArgv into a Worker: with --max-old-space-size that throws
      // untraced too. Everything before it ran as untraced.
      assert.equal(traced.code, 1);
      assert.match(traced.stderr, /ERR_WORKER_INVALID_EXEC_ARGV/);
      assert.ok(plain.stdout.startsWith(traced.stdout), `${traced.stdout}\nis not the start of\n${plain.stdout}`);
      const workers = (await readSpans(dir)).filter((s) => s.name === 'worker child');
      assert.equal(workers.length, 1, 'the worker that inherits execArgv ran the preload');
      return;
    }
    assert.equal(traced.stderr, '');
    assert.equal(traced.code, plain.code);
    assert.equal(traced.signal, plain.signal);
    assert.equal(traced.stdout, plain.stdout);

    const counts = {};
    for (const span of await readSpans(dir)) counts[span.name] = (counts[span.name] ?? 0) + 1;
    // A shell gets NODE_OPTIONS as it is: the node it runs is traced only when the preload came from there.
    const expected = { ...TRACED_BY_FLAG, ...(form.nodeOptions ? { 'exec child': 1 } : {}) };
    for (const [name, count] of Object.entries(expected)) assert.equal(counts[name], count, `${name} spans: ${JSON.stringify(counts)}`);
  });
}

/** A copy of the package in a temporary directory, so that its entries can be deleted. */
function copyPackage(t) {
  const copy = mkdtempSync(join(tmpdir(), 'tracehook-copy-'));
  t.after(() => rmSync(copy, { recursive: true, force: true }));
  for (const file of ['package.json', 'register.mjs', 'register.cjs', 'dist']) cpSync(join(ROOT, file), join(copy, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}

for (const form of ['--import', 'NODE_OPTIONS=--require']) {
  test(`${form}: a preload that can no longer be loaded (its files deleted while the app runs) is given to no child: each runs as untraced`, async (t) => {
    const copy = copyPackage(t);
    const [mjs, cjs] = [join(copy, 'register.mjs'), join(copy, 'register.cjs')];
    const dir = spansDir(t);
    const env = { TRACEHOOK_SPANS_DIR: dir, FIXTURE_REMOVE: `${mjs},${cjs}`, ...(form === '--import' ? {} : { NODE_OPTIONS: `--require ${cjs}` }) };
    const [plain, traced] = await Promise.all([untracedRun(), run(APP, { preload: form === '--import' ? ['--import', mjs] : [], env, timeoutMs: TIMEOUT_MS })]);
    assert.equal(traced.stderr, '');
    assert.equal(traced.code, plain.code);
    assert.equal(traced.stdout, plain.stdout);
    assert.ok(!(await readSpans(dir)).some((s) => s.name.endsWith(' child')), 'no child ran the preload');
  });
}
