// Usage: npm run build && node bench/encode.mjs [--rounds 15] [--ms 300]
// µs per span to encode hello-world-like HTTP SERVER spans (11 attributes, sdk-trace spans) as
// OTLP/JSON (a span-file line, 64 spans) and OTLP/protobuf (a 512-span batch): otlp-transformer's
// serializers ("stock", what TRACEHOOK_OTLP_ENCODER=stock runs) against src/encoding ("direct").
// Variants run interleaved, in alternating order, each round for --ms; the table gives medians over
// rounds and the median of per-round ratios direct / stock.
// Last row: what an exporter thread would save the main thread. The main thread would still copy each span to
// it: a flat record (ids, times, attributes, status, events, links) posted to a worker (structured clone, on the
// posting thread), against encoding the line in place.
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { SpanKind } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { encodeOtlpJson } from '../dist/encoding/otlp-json.js';
import { encodeOtlpProtobuf } from '../dist/encoding/otlp-protobuf.js';
import { stockSpansToOtlpJson } from '../dist/exporters/json-trace-serializer.js';
import { HELLO_SERVER_ATTRIBUTES } from './lib/http-span.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, ms: { type: 'string', default: '300' } } });
const rounds = Number(values.rounds);
const roundMs = Number(values.ms);

function helloWorldSpans(n) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('@tracehook/http', '0.1.0');
  for (let i = 0; i < n; i++) {
    const span = tracer.startSpan('GET', {
      kind: SpanKind.SERVER,
      attributes: { ...HELLO_SERVER_ATTRIBUTES, 'network.peer.address': '127.0.0.1', 'network.peer.port': 40000 + i },
    });
    span.setAttribute('http.response.status_code', 200);
    span.end();
  }
  return memory.getFinishedSpans();
}

const line = helloWorldSpans(64);
const batch = helloWorldSpans(512);
// The exporter thread's stand-in: it only receives (its encoding would run on the other core).
const exporterThread = new Worker("require('node:worker_threads').parentPort.on('message', () => {})", { eval: true });
exporterThread.unref();
const flatRecord = (s) => {
  const { traceId, spanId } = s.spanContext();
  return { name: s.name, kind: s.kind, traceId, spanId, parentSpanId: s.parentSpanContext?.spanId, startTime: s.startTime, endTime: s.endTime, attributes: s.attributes, status: s.status, events: s.events, links: s.links };
};
const handOff = (spans) => exporterThread.postMessage(spans.map(flatRecord));

const cases = [
  { name: 'OTLP/JSON, 64-span line', spans: line, a: ['stock', stockSpansToOtlpJson], b: ['direct', encodeOtlpJson] },
  { name: 'OTLP/protobuf, 512-span batch', spans: batch, a: ['stock', (s) => ProtobufTraceSerializer.serializeRequest(s)], b: ['direct', encodeOtlpProtobuf] },
  { name: 'main thread: 64-span line encoded here, or handed to an exporter thread', spans: line, a: ['direct', encodeOtlpJson], b: ['hand-off', handOff] },
];

/** µs per span of `fn(spans)` run repeatedly for `roundMs`. */
function measure(fn, spans) {
  let calls = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(roundMs * 1e6);
  let now = start;
  while (now < until) {
    fn(spans);
    calls++;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1000 / (calls * spans.length);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

console.log(`Node ${process.version}, ${rounds} interleaved rounds × ${roundMs} ms per variant`);
console.log('| case | A | A µs/span | B | B µs/span | B / A |');
console.log('|---|---|---|---|---|---|');
for (const c of cases) {
  const [nameA, a] = c.a;
  const [nameB, b] = c.b;
  for (let i = 0; i < 50; i++) (a(c.spans), b(c.spans)); // warm-up
  const got = { a: [], b: [], ratio: [] };
  for (let r = 0; r < rounds; r++) {
    const round = {};
    for (const [key, fn] of r % 2 ? [['b', b], ['a', a]] : [['a', a], ['b', b]]) round[key] = measure(fn, c.spans);
    got.a.push(round.a);
    got.b.push(round.b);
    got.ratio.push(round.b / round.a);
  }
  console.log(`| ${c.name} | ${nameA} | ${median(got.a).toFixed(2)} | ${nameB} | ${median(got.b).toFixed(2)} | ×${median(got.ratio).toFixed(2)} |`);
}
