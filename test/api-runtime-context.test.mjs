// RuntimeContextSpanProcessor (pid, thread id, cluster worker id, request id) and the helpers
// acting on the innermost span (status codes stored as numbers, exceptions).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { SpanStatusCode } from '@opentelemetry/api';
import {
  CLUSTER_WORKER_ID_ATTRIBUTE,
  currentSpan,
  getRequestId,
  recordException,
  REQUEST_ID_ATTRIBUTE,
  REQUEST_ID_KEY,
  setSpanAttributes,
  setSpanStatus,
  traced,
  withRequestId,
} from '@tracehook/register/api';
import { finished, only, reset, sleep } from './helpers/api-provider.mjs';

const ROOT = new URL('..', import.meta.url).pathname;

test('every span gets process.pid and thread.id; the request id where one is known', async () => {
  reset();
  assert.equal(REQUEST_ID_KEY, Symbol.for('tracehook.request_id'));
  await traced('no-request', () => {})();
  await withRequestId('req-1', async () => {
    assert.equal(getRequestId(), 'req-1');
    await traced('handler', async () => {
      await sleep(1);
      await new Promise((resolve) => setTimeout(() => traced('in-timer', resolve)(), 1));
      await withRequestId(7, () => traced('nested-id', () => {})());
    })();
  });
  assert.equal(getRequestId(), undefined);

  for (const span of finished()) {
    assert.equal(span.attributes['process.pid'], process.pid, span.name);
    assert.equal(span.attributes['thread.id'], 0, span.name);
    assert.equal(span.attributes[CLUSTER_WORKER_ID_ATTRIBUTE], undefined);
  }
  assert.equal(only('no-request').attributes[REQUEST_ID_ATTRIBUTE], undefined);
  assert.equal(only('handler').attributes[REQUEST_ID_ATTRIBUTE], 'req-1');
  assert.equal(only('in-timer').attributes[REQUEST_ID_ATTRIBUTE], 'req-1');
  assert.equal(only('nested-id').attributes[REQUEST_ID_ATTRIBUTE], '7');
});

test('in a worker thread, thread.id is the worker threadId', async () => {
  const worker = new Worker(new URL('fixtures/api-worker-thread.mjs', import.meta.url));
  // Read now: once the worker has exited (it may have by the time its message is handled), threadId is -1.
  const { threadId } = worker;
  const [message] = await once(worker, 'message');
  assert.deepEqual(message, { 'process.pid': process.pid, 'thread.id': threadId });
});

test('in a cluster worker, the cluster worker id is stamped', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['test/fixtures/api-cluster-worker.mjs'], { cwd: ROOT });
  const { attributes, workerId, pid } = JSON.parse(stdout);
  assert.deepEqual(attributes, { 'process.pid': pid, 'thread.id': 0, [CLUSTER_WORKER_ID_ATTRIBUTE]: workerId });
  assert.equal(workerId, 1);
});

test('setSpanStatus stores numeric codes whatever form is passed; recordException records and marks', async () => {
  reset();
  assert.equal(setSpanStatus('error', 'outside'), false, 'no span: a no-op');
  await traced('ok', () => assert.equal(setSpanStatus('ok', 'ignored for OK'), true))();
  await traced('err', () => setSpanStatus('ERROR', 'it broke'))();
  await traced('enum', () => setSpanStatus(SpanStatusCode.ERROR))();
  await traced('bogus', () => assert.equal(setSpanStatus('200'), false))();
  await traced('recorded', () => {
    assert.equal(recordException(new TypeError('handled')), true);
    assert.equal(setSpanAttributes({ after: 1 }), true);
  })();
  await traced('event-only', () => recordException('just a note', { setStatus: false }))();
  assert.equal(currentSpan(), undefined);
  assert.equal(setSpanAttributes({ a: 1 }), false);
  assert.equal(recordException(new Error('nowhere')), false);

  assert.deepEqual(only('ok').status, { code: SpanStatusCode.OK });
  assert.deepEqual(only('err').status, { code: SpanStatusCode.ERROR, message: 'it broke' });
  assert.equal(only('enum').status.code, SpanStatusCode.ERROR);
  assert.equal(only('bogus').status.code, SpanStatusCode.UNSET);
  for (const span of finished()) assert.equal(typeof span.status.code, 'number');
  const recorded = only('recorded');
  assert.deepEqual(recorded.status, { code: SpanStatusCode.ERROR, message: 'handled' });
  assert.equal(recorded.events[0].attributes['exception.type'], 'TypeError');
  assert.equal(recorded.attributes.after, 1);
  const note = only('event-only');
  assert.equal(note.status.code, SpanStatusCode.UNSET);
  assert.equal(note.events[0].attributes['exception.message'], 'just a note');
});
