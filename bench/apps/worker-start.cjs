// Starts worker threads one after another (BENCH_WORKERS, 5; each terminated before the next) and prints
// `RESULT {"ms":[…],"heapBytes":[…],"mainHeapBytesPerWorker":n}`: per worker, ms from `new Worker()` to its first
// message on the main thread, and the worker's own V8 heap in use when it sent it (the preload runs in the worker
// first, so its heap is in it); and the main thread's heap growth over all workers, per worker.
// Usage: node bench/apps/worker-start.cjs
const { Worker, isMainThread, parentPort } = require('node:worker_threads');

if (!isMainThread) {
  parentPort.postMessage(process.memoryUsage().heapUsed);
} else {
  const n = Number(process.env.BENCH_WORKERS ?? 5);
  (async () => {
    const ms = [];
    const heapBytes = [];
    const heap0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const worker = new Worker(__filename);
      const heap = await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      ms.push(performance.now() - t0);
      heapBytes.push(heap);
      await worker.terminate();
    }
    const mainHeapBytesPerWorker = (process.memoryUsage().heapUsed - heap0) / n;
    console.log(`RESULT ${JSON.stringify({ ms, heapBytes, mainHeapBytesPerWorker })}`);
  })();
}
