// `new Worker(code, { eval: true })`: Node runs `--require` preloads there but never `--import`
// ones, so under `--import` the parent sends such a worker the app's messages as they are (no
// envelope it could not unwrap); under `--require` the preload runs there and the trace crosses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

const APP = 'workers/eval-worker.mjs';

for (const preload of [
  ['--import', '@tracehook/register'],
  ['--require', '@tracehook/register'],
]) {
  test(`${preload[0]}: an eval worker sent a message from a traced context gets exactly the message`, async (t) => {
    const dir = spansDir(t);
    const [plain, traced] = await Promise.all([run(APP, { preload: [] }), run(APP, { preload, env: { TRACEHOOK_SPANS_DIR: dir } })]);
    assert.equal(plain.stdout, 'eval worker got {"hello":"world","n":1}\n');
    assert.equal(traced.stdout, plain.stdout);
    assert.equal(traced.stderr, '');
    assert.equal(traced.code, plain.code);
    const spans = await readSpans(dir);
    const sender = spans.find((s) => s.name === 'sender');
    assert.ok(sender, 'the app was traced');
    const consumer = spans.find((s) => s.name === 'worker process' && s.kind === 'CONSUMER');
    if (preload[0] === '--require') {
      assert.ok(consumer, 'the preload ran in the eval worker: the message crossed with its context');
      assert.equal(consumer.traceId, sender.traceId);
    } else {
      assert.equal(spans.filter((s) => s.name === 'worker send').length, 0, 'no envelope, no PRODUCER span');
    }
  });
}
