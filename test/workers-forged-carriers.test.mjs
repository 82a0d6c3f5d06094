// App messages are never altered, unwrapped or swallowed, whatever their shape: values shaped
// like the preload's worker envelope, IPC carrier or pool task carrier (copying their fields
// exactly) arrive as sent, both ways, on worker_threads, IPC and piscina, from a traced context and
// from none, and never start a trace. Only carriers holding the channel's secret are the preload's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

const APP = 'workers/forged-carriers.mjs';
const FORGED_TRACE = 'feedface'.repeat(4);

for (const preload of [
  ['--import', '@tracehook/register'],
  ['--require', '@tracehook/register'],
]) {
  test(`${preload[0]}: forged envelopes and carriers reach the app as sent on worker_threads, IPC and piscina, both ways`, async (t) => {
    const dir = spansDir(t);
    const [plain, traced] = await Promise.all([run(APP, { preload: [], timeoutMs: 60_000 }), run(APP, { preload, env: { TRACEHOOK_SPANS_DIR: dir }, timeoutMs: 60_000 })]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /got \{"@tracehook\/envelope":1,/);
    assert.equal(traced.stderr, '');
    assert.equal(traced.code, plain.code);
    assert.equal(traced.stdout, plain.stdout);

    const spans = await readSpans(dir);
    assert.ok(spans.filter((s) => s.name === 'echo').length >= 30, 'the other ends were traced');
    const forged = spans.filter((s) => s.traceId === FORGED_TRACE);
    assert.deepEqual(
      forged.map((s) => s.name),
      [],
      'no span joined the forged trace',
    );
    // The real carriers still worked: messages sent from the traced context were consumed in its trace.
    const senders = new Set(spans.filter((s) => s.name === 'sender').map((s) => s.traceId));
    for (const system of ['worker_threads', 'child_process', 'piscina']) {
      const consumers = spans.filter((s) => s.kind === 'CONSUMER' && s.attributes['messaging.system'] === system);
      assert.ok(
        consumers.some((s) => senders.has(s.traceId)),
        `${system}: a CONSUMER span continues a sender's trace`,
      );
    }
  });
}

// Issue 29, item 14a: a child can read the IPC secret from /proc/self/environ (deleting it from process.env does not
// change the process's initial environment). It must authenticate nothing but that child's own channel: with the
// thread's secret, data the child shaped as an envelope was unwrapped (and joined the forged trace) when the parent
// relayed it to a worker.
test('a secret a child reads from /proc/self/environ makes no envelope its parent relays to a worker', { skip: process.platform !== 'linux' && 'no /proc/self/environ' }, async (t) => {
  const dir = spansDir(t);
  const [plain, traced] = await Promise.all([run('workers/relay-secret.mjs', { preload: [] }), run('workers/relay-secret.mjs', { env: { TRACEHOOK_SPANS_DIR: dir } })]);
  assert.equal(plain.stdout, 'the worker got an object with @tracehook/envelope, carrier, id, value\n', plain.stderr);
  assert.deepEqual([traced.code, traced.stdout, traced.stderr], [plain.code, plain.stdout, '']);
  const forged = (await readSpans(dir)).filter((s) => s.traceId === FORGED_TRACE);
  assert.deepEqual(
    forged.map((s) => s.name),
    [],
    'no span joined the forged trace',
  );
});
