// Messages cross unchanged (every structured-clone kind, transfer lists, SharedArrayBuffer,
// MessagePort; IPC with advanced serialization), in both directions, and carry the trace: each
// handler runs inside a CONSUMER span, child of the sender's PRODUCER span. A receiver without the
// preload never sees a carrier.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { indexSpans } from './fixtures/workers/spans.mjs';

const WORKER_CASES = 23;
const IPC_CASES = 18;

async function runFixture(t, fixture, mode, preloaded = true) {
  const dir = spansDir(t);
  const result = await run(fixture, { env: { TRACEHOOK_SPANS_DIR: dir }, args: [mode], ...(preloaded ? {} : { preload: [] }) });
  assert.equal(result.code, 0, result.stderr);
  return { stdout: result.stdout, idx: indexSpans(await readSpans(dir)) };
}

const threadOf = (span) => span.resource['thread.id'];
const pidOf = (span) => span.resource['process.pid'];

/** `span` runs in a CONSUMER span whose PRODUCER span is the child of `sender`; returns both. */
function assertCrossed(idx, span, sender, system) {
  const consumer = idx.parent(span);
  assert.equal(consumer?.kind, 'CONSUMER', `${span.name} runs inside a CONSUMER span (path: ${idx.path(span, true).join(' > ')})`);
  const producer = idx.parent(consumer);
  assert.equal(producer?.kind, 'PRODUCER', `the CONSUMER span of ${span.name} is the child of a PRODUCER span`);
  assert.equal(producer.parentSpanId, sender.spanId, `${span.name}: the PRODUCER span is the sender's`);
  for (const s of [consumer, producer]) {
    assert.equal(s.attributes['messaging.system'], system);
    assert.equal(s.attributes['process.pid'], pidOf(s));
    assert.equal(s.attributes['thread.id'], threadOf(s));
  }
  assert.equal(consumer.attributes['messaging.message.id'], producer.attributes['messaging.message.id']);
  assert.equal(consumer.attributes['messaging.destination.name'], producer.attributes['messaging.destination.name']);
  return { consumer, producer };
}

const workerOutput = [
  `main received ${WORKER_CASES} bad []`,
  `worker received ${WORKER_CASES} bad []`,
  'uncaught main=main listener failed worker=worker listener failed',
  'detached true shared 7 port pong',
].join('\n');

test("worker_threads: every structured-clone kind arrives unchanged both ways, and each listener kind runs in the sender's trace (ESM app)", async (t) => {
  const { stdout, idx } = await runFixture(t, 'workers/messages.mjs', 'traced');
  assert.equal(stdout.trim(), workerOutput);

  const mainSends = idx.one('main sends');
  const consumers = new Set();
  for (let i = 0; i < WORKER_CASES; i++) {
    const got = idx.one(`worker got ${i}`);
    const { consumer, producer } = assertCrossed(idx, got, mainSends, 'worker_threads');
    assert.notEqual(threadOf(consumer), 0);
    assert.equal(threadOf(producer), 0);
    assert.equal(consumer.name, 'worker process');
    assert.equal(producer.name, 'worker send');
    assert.equal(consumer.attributes['messaging.operation.type'], 'process');
    assert.equal(producer.attributes['messaging.operation.type'], 'send');
    assert.match(producer.attributes['messaging.destination.name'], /messages-worker\.mjs$/);
    consumers.add(consumer.spanId);
    for (const other of [`worker event ${i}`, `worker onmessage ${i}`]) {
      assert.equal(idx.one(other).parentSpanId, consumer.spanId, `${other} (addEventListener / onmessage) runs in the same CONSUMER span`);
    }
    if (i === 0) assert.equal(idx.one('worker once').parentSpanId, consumer.spanId, 'once() runs in it too');
  }
  assert.equal(consumers.size, WORKER_CASES, 'one CONSUMER span per message: each on a fresh trace stack');

  const workerReplies = idx.one('worker replies');
  for (let i = 0; i < WORKER_CASES; i++) {
    const { consumer } = assertCrossed(idx, idx.one(`main got ${i}`), workerReplies, 'worker_threads');
    assert.equal(threadOf(consumer), 0);
  }

  const failed = idx.spans.filter((s) => s.status.code === 'ERROR');
  assert.deepEqual(failed.map((s) => `${s.name}@${threadOf(s) === 0 ? 'main' : 'worker'}`).sort(), ['worker process@main', 'worker process@worker']);
  assert.equal(idx.parent(idx.parent(failed.find((s) => threadOf(s) !== 0))).spanId, mainSends.spanId);
});

test("worker_threads: a worker whose env disables tracing gets exactly the user's messages (no envelope is sent to it)", async (t) => {
  const { stdout, idx } = await runFixture(t, 'workers/messages.mjs', 'disabled-worker');
  assert.equal(stdout.trim(), workerOutput);
  assert.equal(idx.named('worker send').length, 0);
  assert.equal(idx.spans.filter((s) => threadOf(s) !== 0).length, 0, 'the worker ran untraced');
});

test("worker_threads: a parent without the preload gets exactly the user's messages from a traced worker", async (t) => {
  const { stdout, idx } = await runFixture(t, 'workers/messages.mjs', 'uninstrumented-parent', false);
  assert.equal(stdout.trim(), workerOutput);
  assert.ok(idx.one('worker replies'), 'the worker was traced');
  assert.equal(idx.named(/^worker (send|process)$/).length, 0, 'it sent no envelope to a parent that cannot unwrap it');
});

const ipcOutput = [`parent received ${IPC_CASES} bad []`, `child received ${IPC_CASES} bad []`, 'uncaught parent=parent listener failed child=child listener failed'].join('\n');

test("child_process IPC: values arrive unchanged both ways and each message handler runs in the sender's trace", async (t) => {
  const { stdout, idx } = await runFixture(t, 'workers/ipc.mjs', 'traced');
  assert.equal(stdout.trim(), ipcOutput);
  const parentSends = idx.one('parent sends');
  const parentPid = pidOf(parentSends);
  for (let i = 0; i < IPC_CASES; i++) {
    const { consumer, producer } = assertCrossed(idx, idx.one(`child got ${i}`), parentSends, 'child_process');
    assert.notEqual(pidOf(consumer), parentPid);
    assert.equal(pidOf(producer), parentPid);
    assert.equal(consumer.name, 'child_process process');
    assert.equal(producer.name, 'child_process send');
    assert.match(consumer.attributes['messaging.destination.name'], /ipc-child\.mjs$/);
  }
  const childReplies = idx.one('child replies');
  for (let i = 0; i < IPC_CASES; i++) {
    const { consumer } = assertCrossed(idx, idx.one(`parent got ${i}`), childReplies, 'child_process');
    assert.equal(pidOf(consumer), parentPid);
  }
  const failed = idx.spans.filter((s) => s.status.code === 'ERROR');
  assert.deepEqual(failed.map((s) => `${s.name}@${pidOf(s) === parentPid ? 'parent' : 'child'}`).sort(), ['child_process process@child', 'child_process process@parent']);
});

test("child_process IPC: a child whose env disables tracing sees exactly the user's messages (carriers are internal messages)", async (t) => {
  const { stdout, idx } = await runFixture(t, 'workers/ipc.mjs', 'disabled-child');
  assert.equal(stdout.trim(), ipcOutput);
  assert.equal(idx.named('child_process send').length, IPC_CASES + 1, 'the parent did send carriers');
  assert.equal(new Set(idx.spans.map(pidOf)).size, 1, 'the child ran untraced');
});

test("child_process IPC: a parent without the preload sees exactly the user's messages from a traced child", async (t) => {
  const { stdout, idx } = await runFixture(t, 'workers/ipc.mjs', 'uninstrumented-parent', false);
  assert.equal(stdout.trim(), ipcOutput);
  assert.ok(idx.one('child replies'), 'the child was traced');
  assert.equal(idx.named(/^child_process /).length, 0, 'it sent no carrier to a parent that did not start it with tracehook');
});
