// Export never runs inside an app's message handler in a worker thread (issue 30): a full line of span-file
// spans is written in a turn of its own, just after the handler that ended them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

test('a worker that ends 100 spans in one message handler writes none of them inside that handler, and all of them soon after', async (t) => {
  const dir = spansDir(t);
  const result = await run('workers/flush-turn.mjs', { env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(result.code, 0, result.stderr);
  const { inHandler, later } = JSON.parse(result.stdout.trim().split('\n').pop());
  assert.equal(inHandler, 0, 'span-file bytes written inside the message handler');
  assert.ok(later > 0, 'nothing written after the handler');
  const names = (await readSpans(dir)).filter((s) => s.name.startsWith('span ')).map((s) => s.name);
  assert.equal(names.length, 100);
});
