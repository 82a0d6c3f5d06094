// piscina no-op tasks on a pool of 2 threads, 32 in flight, run from inside a traced HTTP request. Prints
// `RESULT {"perSec":n,"ops":n,"mainUsPerOp":µs,"otherUsPerOp":µs,"steady":{…}}` (tasks per second over
// BENCH_DURATION_MS after a 300 ms warm-up, and again in steady state: in-request.cjs).
// Usage: BENCH_DURATION_MS=2000 node bench/apps/piscina.cjs
const path = require('node:path');
const { Piscina } = require('piscina');
const inRequest = require('./in-request.cjs');

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 2000);
const pool = new Piscina({ filename: path.join(__dirname, 'piscina-task.cjs'), minThreads: 2, maxThreads: 2 });
let i = 0;
const task = () => pool.run(i++);
inRequest(() => inRequest.phases(durationMs, 32, task));
