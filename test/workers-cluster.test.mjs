// Cluster: the primary's cluster workers run the preload; each request they serve gives one
// complete trace: the primary's CLIENT span, the worker's SERVER span, and the worker's message to
// the primary (cluster send / cluster process).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';
import { indexSpans } from './fixtures/workers/spans.mjs';

test('cluster: requests served by 2 cluster workers each produce a complete trace', async (t) => {
  const dir = spansDir(t);
  const result = await run('workers/cluster.cjs', { env: { TRACEHOOK_SPANS_DIR: dir }, args: ['6'] });
  assert.equal(result.code, 0, result.stderr);
  const servedBy = [...result.stdout.matchAll(/^served (\d+) by (\d+)$/gm)].map((m) => Number(m[2]));
  assert.equal(servedBy.length, 6);
  assert.equal(new Set(servedBy).size, 2, 'both workers served requests');

  const idx = indexSpans(await readSpans(dir));
  for (let i = 0; i < 6; i++) {
    const request = idx.one(`request ${i}`);
    const primaryPid = request.resource['process.pid'];
    const records = idx.one(`primary records ${i}`);
    assert.deepEqual(idx.path(records, true), [`request ${i}`, 'GET', 'GET', 'cluster send', 'cluster process', `primary records ${i}`]);
    const processed = idx.parent(records);
    const send = idx.parent(processed);
    const server = idx.parent(send);
    const client = idx.parent(server);
    assert.equal(client.kind, 'CLIENT');
    assert.equal(client.resource['process.pid'], primaryPid);
    assert.equal(server.kind, 'SERVER');
    assert.equal(server.resource['process.pid'], servedBy[i], 'the SERVER span is in the worker that answered');
    assert.equal(server.resource['process.parent_pid'], primaryPid);
    assert.equal(send.kind, 'PRODUCER');
    assert.equal(send.attributes['messaging.system'], 'cluster');
    assert.equal(processed.kind, 'CONSUMER');
    assert.equal(processed.resource['process.pid'], primaryPid);
    assert.equal(new Set([request, client, server, send, processed, records].map((s) => s.traceId)).size, 1);
  }
});
