// piscina no-op tasks on a pool of 2 threads, 32 in flight, run from inside a traced HTTP request. Prints
// `RESULT {"perSec":n,"ops":n,"mainUsPerOp":µs,"otherUsPerOp":µs}` (tasks per second over BENCH_DURATION_MS, after a warm-up).
// Usage: BENCH_DURATION_MS=2000 node bench/apps/piscina.cjs
const path = require('node:path');
const { Piscina } = require('piscina');
const inRequest = require('./in-request.cjs');

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 2000);
const pool = new Piscina({ filename: path.join(__dirname, 'piscina-task.cjs'), minThreads: 2, maxThreads: 2 });
let i = 0;
const task = () => pool.run(i++);
inRequest(async () => {
  const warm = await inRequest.countFor(300, 32, task); // warm-up (threads started, code hot)
  const n = await inRequest.countFor(durationMs, 32, task);
  return { perSec: n / (durationMs / 1000), ops: warm + n, ...inRequest.lastCpu };
});
