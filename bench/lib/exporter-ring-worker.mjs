// The exporter thread of bench/exporter-ring.mjs: takes spans from the ring (workerData.mode 'ring') or from
// posted flat records ('message'), and writes them as span-file lines with the repo's FileSpanExporter (64 per line).
// Ring mode polls: it sleeps in Atomics.wait up to 2 ms while the ring is empty (the producer never notifies, so
// ending a span costs no syscall), and writes a partial line when the ring runs empty.
import { parentPort, workerData } from 'node:worker_threads';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { FileSpanExporter } from '../../dist/exporters/file-span-exporter.js';
import { CONSUMED, HEAD, RingReader, STOP, recordSpan } from './exporter-ring.mjs';

const { mode, sab, dir, fileName, resourceAttributes } = workerData;
const resource = resourceFromAttributes(resourceAttributes);
const exporter = new FileSpanExporter(dir, { fileName, maxBytes: 2 ** 40 });
const header = new Int32Array(sab, 0, 16);
const done = () => {};
let consumed = 0;

function exportLine(spans) {
  exporter.export(spans, done);
  consumed += spans.length;
  Atomics.store(header, CONSUMED, consumed);
  Atomics.notify(header, CONSUMED);
}

if (mode === 'ring') {
  const reader = new RingReader(sab, resource);
  let spans = [];
  for (;;) {
    const got = reader.read(spans, 64 - spans.length);
    if (spans.length === 64 || (got === 0 && spans.length > 0)) {
      exportLine(spans);
      spans = [];
    }
    if (got === 0) {
      if (Atomics.load(header, STOP)) break;
      Atomics.wait(header, HEAD, Atomics.load(header, HEAD), 2);
    }
  }
  exporter.shutdown();
} else {
  const scopes = new Map();
  parentPort.on('message', (records) => {
    if (records === 'stop') {
      exporter.shutdown();
      parentPort.close();
      return;
    }
    exportLine(records.map((r) => recordSpan(r, resource, scopes)));
  });
}
