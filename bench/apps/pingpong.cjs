// postMessage ping-pong between the main thread and one worker thread, one message in flight, sent from inside a
// traced HTTP request. Prints `RESULT {"perSec":n,"ops":n,"mainUsPerOp":µs,"otherUsPerOp":µs}` (round trips per second over BENCH_DURATION_MS, after a warm-up).
// Usage: BENCH_DURATION_MS=2000 node bench/apps/pingpong.cjs
const { Worker, isMainThread, parentPort } = require('node:worker_threads');

if (!isMainThread) {
  parentPort.on('message', (m) => parentPort.postMessage(m));
} else {
  const inRequest = require('./in-request.cjs');
  const durationMs = Number(process.env.BENCH_DURATION_MS ?? 2000);
  const worker = new Worker(__filename);
  let pending = null;
  worker.on('message', (m) => pending(m));
  let seq = 0;
  const roundTrip = () =>
    new Promise((resolve) => {
      pending = resolve;
      worker.postMessage({ seq: seq++ });
    });
  inRequest(async () => {
    const warm = await inRequest.countFor(300, 1, roundTrip); // warm-up
    const n = await inRequest.countFor(durationMs, 1, roundTrip);
    return { perSec: n / (durationMs / 1000), ops: warm + n, ...inRequest.lastCpu };
  });
}
