// Starts worker threads one after another (BENCH_WORKERS, 5; each terminated before the next) and prints
// `RESULT {"ms":[…],"heapBytes":[…],"cpuMs":[…],"mainHeapBytesPerWorker":n}`: per worker, ms from `new Worker()` to
// its first message on the main thread, the worker's own V8 heap in use when it sent it (the preload runs in the
// worker first, so its heap is in it) and the worker thread's CPU time until then (ms, its schedstat: counted, not
// timed, so it holds on a loaded machine; NaN off Linux); and the main thread's heap growth over all workers, per worker.
// Usage: node bench/apps/worker-start.cjs
const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');

/** This thread's CPU time so far, ms (`/proc/thread-self/schedstat`, first field, ns). */
function threadCpuMs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

if (!isMainThread) {
  parentPort.postMessage({ heap: process.memoryUsage().heapUsed, cpuMs: threadCpuMs() });
} else {
  const n = Number(process.env.BENCH_WORKERS ?? 5);
  (async () => {
    const ms = [];
    const heapBytes = [];
    const cpuMs = [];
    const heap0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const worker = new Worker(__filename);
      const first = await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      ms.push(performance.now() - t0);
      heapBytes.push(first.heap);
      cpuMs.push(first.cpuMs);
      await worker.terminate();
    }
    const mainHeapBytesPerWorker = (process.memoryUsage().heapUsed - heap0) / n;
    console.log(`RESULT ${JSON.stringify({ ms, heapBytes, cpuMs, mainHeapBytesPerWorker })}`);
  })();
}
