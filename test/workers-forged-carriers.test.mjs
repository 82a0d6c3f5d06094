// App messages are never altered, unwrapped or swallowed, whatever their shape: values shaped
// like the preload's worker envelope, IPC carrier or pool task carrier (copying their fields
// exactly) arrive as sent, both ways, on worker_threads, IPC and piscina, from a traced context and
// from none, and never start a trace. Only carriers holding the channel's secret are the preload's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

const APP = 'workers/forged-carriers.mjs';
const FORGED_TRACE = 'feedface'.repeat(4);

for (const preload of [['--import', '@tracehook/register'], ['--require', '@tracehook/register']]) {
  test(`${preload[0]}: forged envelopes and carriers reach the app as sent on worker_threads, IPC and piscina, both ways`, async (t) => {
    const dir = spansDir(t);
    const [plain, traced] = await Promise.all([
      run(APP, { preload: [], timeoutMs: 60_000 }),
      run(APP, { preload, env: { TRACEHOOK_SPANS_DIR: dir }, timeoutMs: 60_000 }),
    ]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /got \{"@tracehook\/envelope":1,/);
    assert.equal(traced.stderr, '');
    assert.equal(traced.code, plain.code);
    assert.equal(traced.stdout, plain.stdout);

    const spans = await readSpans(dir);
    assert.ok(spans.filter((s) => s.name === 'echo').length >= 30, 'the other ends were traced');
    const forged = spans.filter((s) => s.traceId === FORGED_TRACE);
    assert.deepEqual(forged.map((s) => s.name), [], 'no span joined the forged trace');
    // The real carriers still worked: messages sent from the traced context were consumed in its trace.
    const senders = new Set(spans.filter((s) => s.name === 'sender').map((s) => s.traceId));
    for (const system of ['worker_threads', 'child_process', 'piscina']) {
      const consumers = spans.filter((s) => s.kind === 'CONSUMER' && s.attributes['messaging.system'] === system);
      assert.ok(consumers.some((s) => senders.has(s.traceId)), `${system}: a CONSUMER span continues a sender's trace`);
    }
  });
}
