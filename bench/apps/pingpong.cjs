// postMessage ping-pong between the main thread and one worker thread, one message in flight, sent from inside a
// traced HTTP request. Prints `RESULT {"perSec":n,"ops":n,"mainUsPerOp":µs,"otherUsPerOp":µs,"steady":{…,"slowShare":x}}`
// (round trips per second over BENCH_DURATION_MS after a 300 ms warm-up, and again in steady state: in-request.cjs).
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
  inRequest(() => inRequest.phases(durationMs, 1, roundTrip, { tail: true }));
}
