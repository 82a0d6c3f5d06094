// Span start times: the process's monotonic clock on one epoch anchor (issue 30), so spans started within one
// millisecond keep their order, start times never go backwards within a process, and every thread of the process
// reads the same clock (a worker's CONSUMER span never starts before the PRODUCER span of its message).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

const SPANS = 2000;
const MESSAGES = 50;

test('start times: ns resolution, non-decreasing in a tight loop, near Date.now(), one clock across threads', async (t) => {
  const dir = spansDir(t);
  const app = await run('span-start-times.mjs', { args: [String(SPANS), String(MESSAGES)], env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(app.code, 0, app.stderr);
  const { before, after } = JSON.parse(app.stdout.trim().split('\n')[0]);
  const spans = await readSpans(dir);

  const byName = new Map(spans.map((s) => [s.name, s]));
  const tight = [];
  for (let i = 0; i < SPANS; i++) tight.push(byName.get(`tight ${i}`).startTimeUnixNano);
  let subMs = 0;
  for (let i = 1; i < SPANS; i++) {
    assert.ok(tight[i] >= tight[i - 1], `span ${i} starts before span ${i - 1}`);
    if (tight[i] - tight[i - 1] < 1_000_000n && tight[i] !== tight[i - 1]) subMs++;
  }
  assert.ok(subMs > 0, 'some consecutive start times differ by less than 1 ms (not whole milliseconds)');
  assert.ok(
    tight.some((ns) => ns % 1_000_000n !== 0n),
    'start times are not whole milliseconds',
  );
  // Within a few ms of the wall clock around the loop (the anchor is Date.now(), to its millisecond).
  assert.ok(tight[0] >= BigInt(before - 2) * 1_000_000n, `${tight[0]} is before ${before}`);
  assert.ok(tight[SPANS - 1] <= BigInt(after + 3) * 1_000_000n, `${tight[SPANS - 1]} is after ${after}`);

  // Each message's CONSUMER span (the other thread) starts at or after its PRODUCER span.
  const sends = new Map(spans.filter((s) => s.kind === 'PRODUCER').map((s) => [s.attributes['messaging.message.id'], s]));
  const processes = spans.filter((s) => s.kind === 'CONSUMER');
  assert.equal(processes.length, 2 * MESSAGES);
  for (const p of processes) {
    const send = sends.get(p.attributes['messaging.message.id']);
    assert.ok(send, `no PRODUCER span for ${p.attributes['messaging.message.id']}`);
    assert.ok(p.startTimeUnixNano >= send.startTimeUnixNano, `${p.name} ${p.attributes['messaging.message.id']} starts ${send.startTimeUnixNano - p.startTimeUnixNano} ns before its PRODUCER`);
    assert.ok(p.endTimeUnixNano >= p.startTimeUnixNano);
  }
});
