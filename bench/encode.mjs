// Usage: npm run build && node bench/encode.mjs [--rounds 15] [--ms 300]
// µs per span to encode spans as OTLP/JSON (a span-file line, 64 spans, taken to the flat string the exporter
// writes) and OTLP/protobuf (a 512-span batch): otlp-transformer's serializers ("stock", what
// TRACEHOOK_OTLP_ENCODER=stock runs) against src/encoding ("direct"). Two kinds of spans:
// - hello-world-like HTTP SERVER spans (11 attributes, sdk-trace spans);
// - worker messaging spans as a traced process makes them: tracehook's lean tracer, pooled ids (substrings), the
//   CONSUMER span's parent parsed from a traceparent string. Encoded after the first kind by the same functions, so
//   these see strings in the several representations a real process mixes (sliced ids, concatenated names,
//   internalized keys).
// The last row times both on the spans of a real traced app, in its own process (bench/RESULTS.md, "Encoding in place").
// Variants run interleaved, in alternating order, each round for --ms; the table gives medians over
// rounds and the median of per-round ratios direct / stock.
// The "exporter thread" row: what one would save the main thread. The main thread would still copy each span to
// it: a flat record (ids, times, attributes, status, events, links) posted to a worker (structured clone, on the
// posting thread), against encoding the line in place.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { encodeOtlpJson } from '../dist/encoding/otlp-json.js';
import { encodeOtlpProtobuf } from '../dist/encoding/otlp-protobuf.js';
import { stockSpansToOtlpJson } from '../dist/exporters/json-trace-serializer.js';
import { LeanTracerProvider } from '../dist/provider/lean-tracer-provider.js';
import { PooledIdGenerator } from '../dist/provider/id-generator.js';
import { parseTraceparent, toTraceparent } from '../dist/workers/protocol.js';
import { compareInterleaved } from './lib/encoder-rounds.mjs';
import { HELLO_SERVER_ATTRIBUTES } from './lib/http-span.mjs';
import { cleanEnv, tracehookRegister } from './lib/variants.mjs';

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

/** `n` spans alternating `worker send` (PRODUCER) and `worker process` (CONSUMER), with the attributes tracehook gives them. */
function messagingSpans(n) {
  const memory = new InMemorySpanExporter();
  const provider = new LeanTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)], idGenerator: new PooledIdGenerator() });
  const tracer = provider.getTracer('@tracehook/register', '0.1.0');
  const request = tracer.startSpan('GET', { kind: SpanKind.SERVER });
  let parent = trace.setSpan(ROOT_CONTEXT, request);
  for (let i = 0; i < n; i++) {
    const send = i % 2 === 0;
    const attributes = {
      'messaging.system': 'worker_threads',
      'messaging.operation.type': send ? 'send' : 'process',
      'messaging.operation.name': send ? 'postMessage' : 'message',
      'process.pid': process.pid,
      'thread.id': send ? 0 : 1,
      'messaging.destination.name': `${process.cwd()}/app.js`,
      'messaging.message.id': `${process.pid}-0-${i}`,
    };
    const span = tracer.startSpan(`worker ${send ? 'send' : 'process'}`, { kind: send ? SpanKind.PRODUCER : SpanKind.CONSUMER, attributes }, parent);
    span.end();
    // The next span's parent arrives as a traceparent, as across a thread.
    parent = trace.setSpanContext(ROOT_CONTEXT, parseTraceparent(toTraceparent(span.spanContext())));
  }
  return memory.getFinishedSpans();
}

const line = helloWorldSpans(64);
const batch = helloWorldSpans(512);
const messagingLine = messagingSpans(64);
const messagingBatch = messagingSpans(512);
/** The exporter writes the line as one flat string; a direct encoding is a rope until then. */
const flatJson = (encode) => (spans) => Buffer.byteLength(encode(spans));
// The exporter thread's stand-in: it only receives (its encoding would run on the other core).
const exporterThread = new Worker("require('node:worker_threads').parentPort.on('message', () => {})", { eval: true });
exporterThread.unref();
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
    events: s.events,
    links: s.links,
  };
};
const handOff = (spans) => exporterThread.postMessage(spans.map(flatRecord));

const stockProtobuf = (s) => ProtobufTraceSerializer.serializeRequest(s);
const cases = [
  { name: 'OTLP/JSON, 64-span line, HTTP spans', spans: line, a: ['stock', flatJson(stockSpansToOtlpJson)], b: ['direct', flatJson(encodeOtlpJson)] },
  { name: 'OTLP/protobuf, 512-span batch, HTTP spans', spans: batch, a: ['stock', stockProtobuf], b: ['direct', encodeOtlpProtobuf] },
  { name: 'OTLP/JSON, 64-span line, messaging spans', spans: messagingLine, a: ['stock', flatJson(stockSpansToOtlpJson)], b: ['direct', flatJson(encodeOtlpJson)] },
  { name: 'OTLP/protobuf, 512-span batch, messaging spans', spans: messagingBatch, a: ['stock', stockProtobuf], b: ['direct', encodeOtlpProtobuf] },
  { name: 'main thread: 64-span line encoded here, or handed to an exporter thread', spans: line, a: ['direct', flatJson(encodeOtlpJson)], b: ['hand-off', handOff] },
];

console.log(`Node ${process.version}, ${rounds} interleaved rounds × ${roundMs} ms per variant`);
console.log('| case | A | A µs/span | B | B µs/span | B / A |');
console.log('|---|---|---|---|---|---|');
for (const c of cases) {
  const [nameA, a] = c.a;
  const [nameB, b] = c.b;
  const got = compareInterleaved(
    () => a(c.spans),
    () => b(c.spans),
    c.spans.length,
    { rounds, ms: roundMs },
  );
  console.log(`| ${c.name} | ${nameA} | ${got.a.toFixed(2)} | ${nameB} | ${got.b.toFixed(2)} | ×${got.ratio.toFixed(2)} |`);
}

// The worker ping-pong app, traced with no exporter but lib/encode-in-place.mjs, which times both encoders on the
// spans of its main thread.
const inPlace = spawnSync(process.execPath, ['--import', fileURLToPath(tracehookRegister), fileURLToPath(new URL('./apps/pingpong.cjs', import.meta.url))], {
  env: {
    ...cleanEnv(),
    OTEL_TRACES_EXPORTER: 'none',
    TRACEHOOK_EXPORTER_IMPORT_PATH: `${fileURLToPath(new URL('./lib/encode-in-place.mjs', import.meta.url))}:spanProcessors`,
    BENCH_DURATION_MS: '1000',
    BENCH_ENCODE_ROUNDS: String(rounds),
    BENCH_ENCODE_MS: String(roundMs),
  },
  encoding: 'utf8',
  timeout: 60_000 + 2 * rounds * roundMs,
});
const found = /^ENCODE_IN_PLACE (.*)$/m.exec(inPlace.stdout ?? '');
if (found) {
  const r = JSON.parse(found[1]);
  console.log(
    `| OTLP/JSON, 64-span lines in place: the main thread of the worker ping-pong app (${r.spans} spans) | stock | ${r.stock.toFixed(2)} | direct | ${r.direct.toFixed(2)} | ×${r.ratio.toFixed(2)} |`,
  );
} else {
  console.log(`| OTLP/JSON in place | not measured: the app printed no result (status ${inPlace.status}${inPlace.error ? `, ${inPlace.error.message}` : ''}) | | | | |`);
}
