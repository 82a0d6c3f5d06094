// Usage: npm run build && node bench/encode.mjs [--rounds 15] [--ms 300]
// µs per span to encode hello-world-like HTTP SERVER spans (11 attributes, sdk-trace spans) as
// OTLP/JSON (a span-file line, 64 spans) and OTLP/protobuf (a 512-span batch): otlp-transformer's
// serializers ("stock", what TRACEHOOK_OTLP_ENCODER=stock runs) against src/encoding ("direct").
// Variants run interleaved, in alternating order, each round for --ms; the table gives medians over
// rounds and the median of per-round ratios direct / stock.
import { parseArgs } from 'node:util';
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
const cases = [
  { name: 'OTLP/JSON, 64-span line', spans: line, stock: stockSpansToOtlpJson, direct: encodeOtlpJson },
  { name: 'OTLP/protobuf, 512-span batch', spans: batch, stock: (s) => ProtobufTraceSerializer.serializeRequest(s), direct: encodeOtlpProtobuf },
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
console.log('| encoding | stock µs/span | direct µs/span | direct / stock |');
console.log('|---|---|---|---|');
for (const c of cases) {
  for (let i = 0; i < 50; i++) (c.stock(c.spans), c.direct(c.spans)); // warm-up
  const stock = [];
  const direct = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? ['direct', 'stock'] : ['stock', 'direct'];
    const got = {};
    for (const v of order) got[v] = measure(c[v], c.spans);
    stock.push(got.stock);
    direct.push(got.direct);
    ratios.push(got.direct / got.stock);
  }
  console.log(`| ${c.name} | ${median(stock).toFixed(2)} | ${median(direct).toFixed(2)} | ×${median(ratios).toFixed(2)} |`);
}
