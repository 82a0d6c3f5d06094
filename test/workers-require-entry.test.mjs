// A worker thread of an app started with `--import @tracehook/register` gets `--require register.cjs` in its place
// when the preload starts synchronously (no startup hook, exporter import path or ES module loader hook): the same
// preload without the ES module loader an `--import` starts in every worker (bench/RESULTS.md, issue 30's worker
// note). The trace still crosses; a child the worker spawns gets `--import`, as its starter's children do, and so
// does a worker it starts whose env asks for the ES module loader hook; with that hook, or another `--import`, the
// worker keeps `--import`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run, spansDir } from './helpers/fixture.mjs';

async function worker(t, env = {}, preload = undefined) {
  const result = await run('workers/require-entry.cjs', { env: { TRACEHOOK_SPANS_DIR: spansDir(t), ...env }, preload });
  assert.equal(result.code, 0, result.stderr);
  const reported = JSON.parse(/^WORKER (.*)$/m.exec(result.stdout)?.[1] ?? 'null');
  assert.ok(reported, result.stdout);
  return { ...reported, starterTraceId: /^STARTER (\w+)$/m.exec(result.stdout)?.[1] };
}

const entry = (execArgv) => execArgv.filter((a) => /register\.(c|m)js/.test(a) || a === '--import' || a === '--require' || a === '-r');

test('a worker of an --import app gets --require register.cjs, runs the preload in the trace of its starter, and gives its children (and workers that need it) --import', async (t) => {
  const w = await worker(t);
  assert.deepEqual(
    entry(w.execArgv).map((a) => a.replace(/^.*\//, '')),
    ['--require', 'register.cjs'],
  );
  assert.equal(w.running, true, 'the preload started in the worker');
  assert.equal(w.traceId, w.starterTraceId, "the worker's top level runs in the new Worker() caller's trace");
  const [childExecArgv, childNodeOptions] = w.child;
  const childFlags = `${childExecArgv.join(' ')} ${childNodeOptions}`;
  assert.match(childFlags, /--import \S*register\.mjs/, `the child gets --import as the app's children do: ${childFlags}`);
  assert.doesNotMatch(childFlags, /register\.cjs/);
  const short = (execArgv) => entry(execArgv).map((a) => a.replace(/^.*\//, ''));
  assert.deepEqual(short(w.nested.lean), ['--require', 'register.cjs'], 'a nested worker that starts as synchronously');
  assert.deepEqual(short(w.nested.esm), ['--import', 'register.mjs'], 'a nested worker whose env asks for the ES module loader hook gets --import again');
});

test('with the ES module loader hook, or another --import, the worker keeps --import register.mjs', async (t) => {
  const esm = await worker(t, { TRACEHOOK_ESM_LOADER: 'true' });
  assert.deepEqual(
    entry(esm.execArgv).map((a) => a.replace(/^.*\//, '')),
    ['--import', 'register.mjs'],
  );
  assert.equal(esm.running, true);
  const other = await worker(t, {}, ['--import', '@tracehook/register', '--import', 'data:text/javascript,']);
  assert.equal(entry(other.execArgv).filter((a) => a.endsWith('register.mjs')).length, 1, String(other.execArgv));
  assert.equal(other.running, true);
  assert.equal(other.traceId, other.starterTraceId);
});
