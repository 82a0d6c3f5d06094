// The product's main difference: one trace follows a request from the HTTP server on the main
// thread into a worker thread, from there into a forked child process, and back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { indexSpans } from './fixtures/workers/spans.mjs';

const CHAIN = [
  ['client', 'INTERNAL', 'main'],
  ['GET', 'CLIENT', 'main'],
  ['GET', 'SERVER', 'main'],
  ['worker send', 'PRODUCER', 'main'],
  ['worker process', 'CONSUMER', 'worker'],
  ['worker forwards request', 'INTERNAL', 'worker'],
  ['child_process send', 'PRODUCER', 'worker'],
  ['child_process process', 'CONSUMER', 'child'],
  ['child works', 'INTERNAL', 'child'],
  ['child_process send', 'PRODUCER', 'child'],
  ['child_process process', 'CONSUMER', 'worker'],
  ['worker forwards reply', 'INTERNAL', 'worker'],
  ['worker send', 'PRODUCER', 'worker'],
  ['worker process', 'CONSUMER', 'main'],
  ['main handles reply', 'INTERNAL', 'main'],
];

for (const preload of [
  ['--import', '@tracehook/register'],
  ['--require', '@tracehook/register'],
]) {
  test(`${preload[0]}: HTTP request → main thread → worker thread → forked child → reply is one trace across 3 threads and 2 processes (ESM app)`, async (t) => {
    const dir = spansDir(t);
    const result = await run('workers/chain.mjs', { env: { TRACEHOOK_SPANS_DIR: dir }, preload });
    assert.equal(result.code, 0, result.stderr);
    const [, json] = result.stdout.match(/^reply (.*)$/m) ?? [];
    const reply = JSON.parse(json);
    assert.equal(reply.path, '/chain');

    const idx = indexSpans(await readSpans(dir));
    const end = idx.one('main handles reply');
    const chain = [];
    for (let s = end; s; s = idx.parent(s)) chain.unshift(s);
    const main = chain[0].resource;
    const where = (s) => {
      const { 'process.pid': pid, 'thread.id': thread } = s.resource;
      if (pid === main['process.pid']) return thread === 0 ? 'main' : 'worker';
      return pid === reply.childPid && thread === 0 ? 'child' : `pid ${pid} thread ${thread}`;
    };
    assert.deepEqual(
      chain.map((s) => [s.name, s.kind, where(s)]),
      CHAIN,
    );
    assert.equal(new Set(chain.map((s) => s.traceId)).size, 1, 'one trace');
    assert.equal(new Set(chain.map((s) => `${s.resource['process.pid']}/${s.resource['thread.id']}`)).size, 3, '3 threads');
    assert.equal(new Set(chain.map((s) => s.resource['process.pid'])).size, 2, '2 processes');
    const worker = chain.find((s) => where(s) === 'worker');
    assert.equal(worker.resource['thread.id'], reply.workerThread);
    const child = chain.find((s) => where(s) === 'child');
    assert.equal(child.resource['process.parent_pid'], main['process.pid']);
  });
}
