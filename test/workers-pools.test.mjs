// Worker pools: piscina's and tinypool's run(task) carry the caller's context into the task
// function, which runs inside a CONSUMER span child of the caller's PRODUCER span.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { indexSpans } from './fixtures/workers/spans.mjs';

/** Checks the trace of every task of a pool fixture; returns the CONSUMER spans. */
function assertTaskTraces(spans, system, count) {
  const idx = indexSpans(spans);
  const consumers = idx.named(`${system} process`);
  assert.equal(idx.named(`${system} send`).length, count, 'one PRODUCER span per task');
  assert.equal(consumers.length, count, 'one CONSUMER span per task');
  const traces = new Set();
  for (let i = 0; i < count; i++) {
    const caller = idx.one(`caller ${i}`);
    const task = idx.one(`task ${i}`);
    const consumer = idx.parent(task);
    assert.equal(consumer?.name, `${system} process`, `task ${i} runs inside its CONSUMER span`);
    assert.equal(consumer.kind, 'CONSUMER');
    const producer = idx.parent(consumer);
    assert.equal(producer?.name, `${system} send`, `task ${i}: CONSUMER is the child of a PRODUCER span`);
    assert.equal(producer.kind, 'PRODUCER');
    assert.equal(producer.parentSpanId, caller.spanId, `task ${i}: the PRODUCER span is its own caller's`);
    assert.equal(task.traceId, caller.traceId);
    traces.add(caller.traceId);
    assert.equal(consumer.attributes['messaging.system'], system);
    assert.equal(consumer.attributes['messaging.operation.type'], 'process');
    assert.equal(producer.attributes['messaging.operation.type'], 'send');
    assert.equal(consumer.attributes['messaging.message.id'], producer.attributes['messaging.message.id']);
    assert.match(consumer.attributes['messaging.destination.name'], /pool-task\.cjs$/);
    assert.equal(producer.attributes['messaging.destination.name'], consumer.attributes['messaging.destination.name']);
    assert.notEqual(consumer.resource['thread.id'], 0, 'the task ran in a worker thread');
    assert.equal(consumer.attributes['thread.id'], consumer.resource['thread.id']);
    assert.equal(consumer.status.code, i % 100 === 99 ? 'ERROR' : 'UNSET', `task ${i}: a task that throws marks its CONSUMER span ERROR`);
    // The app saw which worker ran the task (its result); the CONSUMER span is that worker's.
    if (i % 100 !== 99) assert.equal(consumer.resource['thread.id'], caller.attributes['task.thread.id'], `task ${i}: its CONSUMER span comes from the worker that ran it`);
  }
  assert.equal(traces.size, count, 'each task from its own trace');
  // However the pool scheduled them: every worker that ran a task was traced.
  const ranTasks = new Set(
    idx
      .named(/^caller /)
      .map((s) => s.attributes['task.thread.id'])
      .filter((id) => id !== undefined),
  );
  const traced = new Set(consumers.map((s) => s.resource['thread.id']));
  assert.deepEqual([...ranTasks].sort(), [...traced].sort(), 'the threads that ran tasks are the threads with CONSUMER spans');
  return consumers;
}

test("piscina: 1000 concurrent tasks on a pool of 4 workers, each CONSUMER span the child of its own caller's PRODUCER span, in the worker that ran it (CJS app)", async (t) => {
  const dir = spansDir(t);
  const result = await run('workers/piscina-pool.cjs', { env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^done 990 10 [1-4]$/m, "every task got its own input back (how many of the 4 workers ran them is the pool's choice)");
  assertTaskTraces(await readSpans(dir), 'piscina', 1000);
});

test("tinypool: 200 concurrent tasks on a pool of 2 workers from an ES module, each CONSUMER span the child of its own caller's PRODUCER span, in the worker that ran it", async (t) => {
  const dir = spansDir(t);
  const result = await run('workers/tinypool-pool.mjs', { env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^done 198 2 [12]$/m, 'every task got its own input back');
  assertTaskTraces(await readSpans(dir), 'tinypool', 200);
});

test('piscina: tasks run from a context with no span carry nothing and run on an empty trace stack', async (t) => {
  const dir = spansDir(t);
  const result = await run('workers/piscina-pool.cjs', { env: { TRACEHOOK_SPANS_DIR: dir }, args: ['20', 'untraced'] });
  assert.equal(result.code, 0, result.stderr);
  const idx = indexSpans(await readSpans(dir));
  assert.equal(idx.named(/^piscina /).length, 0, 'no PRODUCER or CONSUMER span');
  for (const task of idx.named(/^task /)) assert.equal(task.parentSpanId, undefined, `${task.name} is a root: no stale context leaked in`);
});

test('TRACEHOOK_MESSAGING_SPANS=false: no PRODUCER/CONSUMER spans, each task span is the child of its own caller', async (t) => {
  const dir = spansDir(t);
  const result = await run('workers/piscina-pool.cjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_MESSAGING_SPANS: 'false' }, args: ['200'] });
  assert.equal(result.code, 0, result.stderr);
  const idx = indexSpans(await readSpans(dir));
  assert.equal(idx.named(/^piscina /).length, 0, 'no messaging spans');
  for (let i = 0; i < 200; i++) {
    const caller = idx.one(`caller ${i}`);
    const task = idx.one(`task ${i}`);
    assert.equal(task.parentSpanId, caller.spanId, `task ${i} is a child of its caller`);
    assert.equal(task.traceId, caller.traceId);
  }
});

// Issue 30: a task's PRODUCER span was started at run() and kept, open, until the pool handed the task to a worker:
// a task queued for long kept a span alive (promoted to the old generation, GC pauses doubled). Now only its ids,
// carrier and start time wait with the task; the span is recorded, ended, at the hand-over.
test('piscina: tasks queued behind a busy worker hold no open PRODUCER span; each is recorded at its hand-over, from its run() on', async (t) => {
  const dir = spansDir(t);
  const tasks = 50;
  const app = await run('workers/piscina-queued.cjs', { args: [String(tasks)], env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(app.code, 0, app.stderr);
  assert.match(app.stdout, /^open 1\ndone 50\n$/, 'only the caller span is open while 50 tasks wait');
  const idx = indexSpans(await readSpans(dir));
  const caller = idx.one('caller');
  const producers = idx.named('piscina send');
  assert.equal(producers.length, tasks);
  for (const producer of producers) {
    assert.equal(producer.parentSpanId, caller.spanId);
    assert.match(producer.attributes['messaging.destination.name'], /pool-task\.cjs$/);
    assert.ok(producer.startTimeUnixNano >= caller.startTimeUnixNano && producer.endTimeUnixNano >= producer.startTimeUnixNano);
    const consumer = idx.named('piscina process').find((c) => c.parentSpanId === producer.spanId);
    assert.ok(consumer, 'its CONSUMER span is its child');
    assert.ok(consumer.startTimeUnixNano >= producer.startTimeUnixNano);
  }
});
