// worker.terminate() of a worker busy in synchronous code that holds no ended span stops it at
// once, as untraced: there is nothing to flush, and a busy worker could not answer a flush request
// before the bound (250 ms each). A worker that holds ended spans is still asked to flush first
// (workers-startup.test.mjs: "terminate() loses no ended span").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run, spansDir } from './helpers/fixture.mjs';

const APP = 'workers/terminate-busy.cjs';
const WORKERS = 8;
const FLUSH_BOUND_MS = 250;

for (const preload of [
  ['--import', '@tracehook/register'],
  ['--require', '@tracehook/register'],
]) {
  test(`${preload[0]}: terminate() of busy workers holding no spans does not wait for a flush`, async (t) => {
    const [plain, traced] = await Promise.all([run(APP, { preload: [], args: [String(WORKERS)] }), run(APP, { preload, args: [String(WORKERS)], env: { TRACEHOOK_SPANS_DIR: spansDir(t) } })]);
    const [plainLine, plainTiming] = plain.stdout.split('\n');
    const [tracedLine, timing] = traced.stdout.split('\n');
    assert.equal(plainLine, `terminated ${Array(WORKERS).fill(1).join(' ')}`);
    assert.equal(tracedLine, plainLine);
    assert.equal(traced.code, plain.code);
    assert.equal(traced.stderr, '');
    // Waiting for each would add WORKERS × 250 ms to what the untraced app (run at the same time, so
    // under the same load) takes; allow half of that for a loaded machine.
    const ms = (line) => Number(line.match(/^terminate ms (\d+)$/)[1]);
    assert.ok(ms(timing) < ms(plainTiming) + (WORKERS * FLUSH_BOUND_MS) / 2, `the ${WORKERS} terminate() calls took ${ms(timing)} ms (untraced: ${ms(plainTiming)} ms)`);
  });
}
