// The preload reaches every worker and child, even when the app passes its own execArgv
// ([]) or NODE_OPTIONS, and each starts inside the context that started it: a worker thread
// through the creation hand-off, a spawned or forked child through TRACEPARENT. A terminated
// worker loses no ended span.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { indexSpans } from './fixtures/workers/spans.mjs';

test("execArgv: [] workers and children are traced and start in their starter's context; terminate() loses no ended span (CJS app)", async (t) => {
  const dir = spansDir(t);
  const result = await run('workers/startup.cjs', { env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stdout.trim(),
    [
      // The Worker constructor added the preload to execArgv: []; receiveMessageOnPort(parentPort)
      // got the value, not its envelope.
      'worker ready true took {"message":{"sync":1}} terminated 1',
      'spawn child 16000 4', // the app's NODE_OPTIONS kept; a 4-part TRACEPARENT
      'spawnSync child 16384 4',
      'fork child preload in NODE_OPTIONS true',
    ].join('\n'),
  );
  const idx = indexSpans(await readSpans(dir));
  const mainPid = idx.one('starter').resource['process.pid'];

  const starter = idx.one('starter');
  const top = idx.one('worker top level');
  assert.equal(top.parentSpanId, starter.spanId, "the worker's top level ran in the new Worker() caller's context");
  assert.notEqual(top.resource['thread.id'], 0);
  assert.equal(top.resource['process.pid'], mainPid);
  assert.equal(top.attributes.workerData, '{"k":"v"}', 'workerData arrived unchanged');
  assert.equal(idx.one('worker before terminate').parentSpanId, top.spanId, 'spans ended before terminate() reached the span file');
  const consumers = idx.named('worker process');
  assert.equal(consumers.length, 2, 'both messages from the worker ran in CONSUMER spans');
  const ready = consumers.map((s) => idx.parent(s)).find((p) => p.parentSpanId === starter.spanId);
  assert.ok(ready, "a message posted at the worker's top level carries that context");

  for (const [starterName, childName] of [
    ['spawner', 'spawn child top level'],
    ['sync spawner', 'spawnSync child top level'],
    ['forker', 'fork child top level'],
  ]) {
    const parent = idx.one(starterName);
    const child = idx.one(childName);
    assert.equal(child.traceId, parent.traceId, `${childName} continues the trace through TRACEPARENT`);
    assert.equal(child.parentSpanId, parent.spanId);
    assert.notEqual(child.resource['process.pid'], mainPid);
    assert.equal(child.resource['process.parent_pid'], mainPid);
  }
});
