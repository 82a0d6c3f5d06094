// The span processor of a TRACEHOOK_EXPORTER_IMPORT_PATH (`…/ring-processor.mjs:spanProcessors`) for the
// `tracehook-ring` variant of bench/throughput.mjs (issue 30 scope 1's evaluation; with OTEL_TRACES_EXPORTER=none):
// on the main thread each ended span is copied into a 16 MiB SharedArrayBuffer ring (lib/exporter-ring.mjs) and one
// exporter thread writes `<TRACEHOOK_SPANS_DIR>/<pid>.jsonl` with the repo's FileSpanExporter. A prototype: other
// threads export nothing, and spans still in the ring when the process is killed are lost.
import { isMainThread, Worker } from 'node:worker_threads';
import { CONSUMED, RingWriter, STOP, createRing } from './exporter-ring.mjs';

export function spanProcessors() {
  if (!isMainThread) return [];
  const sab = createRing(16 * 1024 * 1024);
  const header = new Int32Array(sab, 0, 16);
  const writer = new RingWriter(sab);
  let thread;
  let sent = 0;
  const drain = (ms) => {
    const until = Date.now() + ms;
    for (let got = Atomics.load(header, CONSUMED); got < sent && Date.now() < until; got = Atomics.load(header, CONSUMED)) Atomics.wait(header, CONSUMED, got, 20);
  };
  return [
    {
      onStart() {},
      onEnd(span) {
        // Started at the first span: the exporter thread needs the resource's attributes.
        if (thread === undefined) {
          thread = new Worker(new URL('./exporter-ring-worker.mjs', import.meta.url), {
            workerData: { mode: 'ring', sab, dir: process.env.TRACEHOOK_SPANS_DIR ?? '/tmp/spans', fileName: `${process.pid}.jsonl`, resourceAttributes: { ...span.resource.attributes } },
            env: { ...process.env, TRACEHOOK_DISABLED: 'true' },
          });
          thread.unref();
        }
        if (writer.write(span)) sent++;
      },
      async forceFlush() {
        drain(300);
      },
      async shutdown() {
        drain(300);
        Atomics.store(header, STOP, 1);
      },
    },
  ];
}
