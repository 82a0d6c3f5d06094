// Usage: npm run build && node bench/exporter-ring.mjs [--rounds 10] [--spans 20000]
// Issue 30 scope 1's evaluation: would one exporter thread per process, fed through a shared-memory ring of
// allocation-free records, take export off the thread that ends spans at a cost the process can afford? One process
// makes hello-world HTTP SERVER spans with tracehook's lean tracer (pooled ids, the 11 attributes of
// lib/http-span.mjs plus peer address, port and status code) and, per variant, on each span's end:
// - none:    nothing (the span is made and ended, not exported): the floor of the comparison;
// - inline:  today's path: 64 spans, then the repo's FileSpanExporter encodes and writes a line on this thread;
// - ring:    the span copied into a 16 MiB SharedArrayBuffer ring as one binary record (lib/exporter-ring.mjs);
//            an exporter thread decodes records and writes the lines with the same FileSpanExporter;
// - message: 64 flat records (bench/encode.mjs's hand-off) posted to an exporter thread, which does the same.
// Each round runs every variant once (the order rotated) over --spans spans. Measured per span: the ending (main)
// thread's CPU while it makes and hands off the spans (process.threadCpuUsage), and the whole process's CPU
// (process.cpuUsage: every thread, the exporter's and GC helpers' included) until the exporter thread has written
// them all. Printed: medians over rounds, and the median of per-round differences against `none`. Span files go to a
// temp directory, removed at the end. Then the exporter thread's steps timed one after the other in one thread
// (copy, decode into span objects, encode + write them, and encode + write the original lean spans), to show where
// the ring's extra whole-process CPU goes, and whether spans passed through a small ring encode to the same bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { SpanKind } from '@opentelemetry/api';
import { FileSpanExporter } from '../dist/exporters/file-span-exporter.js';
import { spansToOtlpJson } from '../dist/exporters/json-trace-serializer.js';
import { PooledIdGenerator } from '../dist/provider/id-generator.js';
import { LeanTracerProvider } from '../dist/provider/lean-tracer-provider.js';
import { CONSUMED, HEAD, RingReader, RingWriter, STOP, createRing } from './lib/exporter-ring.mjs';
import { HELLO_SERVER_ATTRIBUTES } from './lib/http-span.mjs';
import { median } from './lib/stats.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '10' }, spans: { type: 'string', default: '20000' } } });
const rounds = Number(values.rounds);
const perRound = Number(values.spans);
const dir = mkdtempSync(join(tmpdir(), 'exporter-ring-'));

let onEnd = () => {};
const provider = new LeanTracerProvider({
  spanProcessors: [{ onStart() {}, onEnd: (s) => onEnd(s), forceFlush: async () => {}, shutdown: async () => {} }],
  idGenerator: new PooledIdGenerator(),
});
const tracer = provider.getTracer('@tracehook/http', '0.1.0');

function makeSpans(n) {
  for (let i = 0; i < n; i++) {
    const span = tracer.startSpan('GET', {
      kind: SpanKind.SERVER,
      attributes: { ...HELLO_SERVER_ATTRIBUTES, 'network.peer.address': '127.0.0.1', 'network.peer.port': 40000 + (i & 0x3fff) },
    });
    span.setAttribute('http.response.status_code', 200);
    span.end();
  }
}

let sample;
onEnd = (s) => (sample = s);
makeSpans(1);
const resourceAttributes = { ...sample.resource.attributes };

const sab = createRing(16 * 1024 * 1024);
const header = new Int32Array(sab, 0, 16);
const writer = new RingWriter(sab);
const ringThread = new Worker(new URL('./lib/exporter-ring-worker.mjs', import.meta.url), {
  workerData: { mode: 'ring', sab, dir, fileName: 'ring.jsonl', resourceAttributes },
});
const messageSab = new SharedArrayBuffer(64);
const messageHeader = new Int32Array(messageSab, 0, 16);
const messageThread = new Worker(new URL('./lib/exporter-ring-worker.mjs', import.meta.url), {
  workerData: { mode: 'message', sab: messageSab, dir, fileName: 'message.jsonl', resourceAttributes },
});
const inlineExporter = new FileSpanExporter(dir, { fileName: 'inline.jsonl', maxBytes: 2 ** 40 });

const flatRecord = (s) => {
  const { traceId, spanId } = s.spanContext();
  return {
    name: s.name,
    kind: s.kind,
    traceId,
    spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    startTime: s.startTime,
    endTime: s.endTime,
    attributes: s.attributes,
    status: s.status,
    scope: s.instrumentationScope.name,
    version: s.instrumentationScope.version,
  };
};

/** Waits (blocking: costs no CPU) until the exporter thread behind `h` has written `target` spans in all. */
function waitConsumed(h, target) {
  for (let got = Atomics.load(h, CONSUMED); got < target; got = Atomics.load(h, CONSUMED)) Atomics.wait(h, CONSUMED, got, 100);
}

const done = () => {};
let batch = [];
let ringSent = 0;
let messageSent = 0;
let recordBytes = 0;
const VARIANTS = {
  none: { end: () => {}, drain() {} },
  inline: {
    end(s) {
      batch.push(s);
      if (batch.length === 64) {
        inlineExporter.export(batch, done);
        batch = [];
      }
    },
    drain() {
      if (batch.length) inlineExporter.export(batch, done);
      batch = [];
    },
  },
  ring: {
    end(s) {
      if (writer.write(s)) ringSent++;
    },
    drain() {
      waitConsumed(header, ringSent);
    },
  },
  message: {
    end(s) {
      batch.push(s);
      if (batch.length === 64) {
        messageThread.postMessage(batch.map(flatRecord));
        messageSent += 64;
        batch = [];
      }
    },
    drain() {
      if (batch.length) messageThread.postMessage(batch.map(flatRecord));
      messageSent += batch.length;
      batch = [];
      waitConsumed(messageHeader, messageSent);
    },
  },
};
const names = Object.keys(VARIANTS);

/** One variant over `perRound` spans: { thread, process } CPU µs per span. */
function run(name) {
  const v = VARIANTS[name];
  onEnd = v.end;
  const head0 = Atomics.load(header, HEAD);
  const t0 = process.threadCpuUsage();
  const p0 = process.cpuUsage();
  makeSpans(perRound);
  const t1 = process.threadCpuUsage(t0);
  v.drain();
  const p1 = process.cpuUsage(p0);
  if (name === 'ring') {
    const head1 = Atomics.load(header, HEAD);
    if (head1 > head0) recordBytes = (head1 - head0) / perRound;
  }
  return { thread: (t1.user + t1.system) / perRound, process: (p1.user + p1.system) / perRound };
}

// Warm-up: every path compiled, the files opened.
for (const name of names) run(name);
const got = [];
for (let r = 0; r < rounds; r++) {
  const round = {};
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + r) % names.length];
    round[name] = run(name);
  }
  got.push(round);
}
// Where the exporter thread's extra CPU goes: the steps one after the other in this thread, on 64-span lines of
// spans made once (medians over rounds of µs per span).
const kept = [];
onEnd = (s) => kept.push(s);
makeSpans(64 * 16);
const partsSab = createRing(4 * 1024 * 1024);
const partsWriter = new RingWriter(partsSab);
const partsReader = new RingReader(partsSab, sample.resource);
const partsExporter = new FileSpanExporter(dir, { fileName: 'parts.jsonl', maxBytes: 2 ** 40 });
// The records carry the spans whole: a 64 KiB ring (wrapping many times) gives back spans that encode to the same bytes.
const checkRing = createRing(64 * 1024);
const checkWriter = new RingWriter(checkRing);
const checkReader = new RingReader(checkRing, sample.resource);
const roundTrip = [];
for (const s of kept) {
  checkWriter.write(s);
  checkReader.read(roundTrip, 1);
}
const identical = roundTrip.length === kept.length && spansToOtlpJson(roundTrip) === spansToOtlpJson(kept);
const cpuUs = (t0) => {
  const t = process.threadCpuUsage(t0);
  return t.user + t.system;
};
const parts = { copy: [], decode: [], exportDecoded: [], exportLean: [] };
for (let r = 0; r < rounds + 1; r++) {
  const sum = { copy: 0, decode: 0, exportDecoded: 0, exportLean: 0 };
  for (let rep = 0; rep < 4; rep++) {
    for (let l = 0; l < kept.length; l += 64) {
      const line = kept.slice(l, l + 64);
      let t0 = process.threadCpuUsage();
      for (const s of line) partsWriter.write(s);
      sum.copy += cpuUs(t0);
      const decoded = [];
      t0 = process.threadCpuUsage();
      partsReader.read(decoded, 64);
      sum.decode += cpuUs(t0);
      t0 = process.threadCpuUsage();
      partsExporter.export(decoded, done);
      sum.exportDecoded += cpuUs(t0);
      t0 = process.threadCpuUsage();
      partsExporter.export(line, done);
      sum.exportLean += cpuUs(t0);
    }
  }
  if (r === 0) continue; // warm-up
  for (const k of Object.keys(parts)) parts[k].push(sum[k] / (kept.length * 4));
}
partsExporter.shutdown();
Atomics.store(header, STOP, 1);
messageThread.postMessage('stop');
await Promise.all([new Promise((r) => ringThread.once('exit', r)), new Promise((r) => messageThread.once('exit', r))]);
inlineExporter.shutdown();
rmSync(dir, { recursive: true, force: true });

const med = (name, key) => median(got.map((x) => x[name][key]));
const diff = (name, key) => median(got.map((x) => x[name][key] - x.none[key]));
console.log(`Node ${process.version}, ${rounds} interleaved rounds × ${perRound} spans per variant; ring record ${recordBytes.toFixed(0)} B/span, dropped ${Atomics.load(header, 2)}`);
console.log('| variant | ending thread µs/span | − none | whole process µs/span | − none |');
console.log('|---|---|---|---|---|');
for (const name of names) {
  const d = (key) => (name === 'none' ? '' : `+${diff(name, key).toFixed(2)}`);
  console.log(`| ${name} | ${med(name, 'thread').toFixed(2)} | ${d('thread')} | ${med(name, 'process').toFixed(2)} | ${d('process')} |`);
}
const part = (k) => median(parts[k]).toFixed(2);
console.log(
  `One thread, the steps in turn (µs per span, medians): copy into the ring ${part('copy')}, decode into span objects ${part('decode')}, ` +
    `encode + write the decoded spans ${part('exportDecoded')}, encode + write the lean spans themselves ${part('exportLean')}; ` +
    `decoded spans encode byte-identical to the originals: ${identical ? 'yes' : 'NO'}`,
);
