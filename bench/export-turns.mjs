// Usage: npm run build && node bench/export-turns.mjs [--rounds 5] [--bursts 40]
// The turns of the event loop spent on export, OTLP/HTTP (http/protobuf and http/json, the direct encoders) to a
// healthy receiver in its own process: tracehook's span processor and OTLP exporter in this process, fed a burst of
// 512 hello-world SERVER spans every 10 ms (a full batch each time). Each stretch of export work in one turn (a call
// of the processor's drain: its slices, the export() calls in them, the old one-shot encoding included) is timed in
// wall-clock time (this machine's thread CPU clocks tick in 4 ms steps); per burst the longest. On a loaded machine a
// stretch also counts the time other processes ran, so the median says more than the maximum. Also the process's CPU time per span
// (ending and exporting it) over the whole run. Medians over rounds. The goal: no export turn longer than 1 ms.
import { parseArgs } from 'node:util';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { BoundedBatchSpanProcessor } from '../dist/processors/bounded-batch-span-processor.js';
import { createDirectOtlpHttpExporter } from '../dist/exporters/direct-otlp-http-exporter.js';
import { ExitSafeSpanExporter } from '../dist/exporters/exit-safe-span-exporter.js';
import { HELLO_SERVER_ATTRIBUTES } from './lib/http-span.mjs';
import { startSinkProcess } from './lib/otlp-sink.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, bursts: { type: 'string', default: '40' } } });
const BATCH = 512;
const PACKAGES = { 'http/protobuf': '@opentelemetry/exporter-trace-otlp-proto', 'http/json': '@opentelemetry/exporter-trace-otlp-http' };

async function round(protocol, sink, bursts) {
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${sink.url}/v1/traces`;
  const direct = createDirectOtlpHttpExporter(PACKAGES[protocol], protocol, { concurrencyLimit: 16 });
  const exporter = new ExitSafeSpanExporter(direct, { protocol: 'http', url: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, headers: {}, timeoutMs: 10_000 });
  const processor = new BoundedBatchSpanProcessor(exporter, { destination: protocol, maxConcurrentExports: 8 });
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer('@tracehook/http', '0.1.0');
  // The longest stretch in each burst's 10 ms (the last one's up to the end of the flush).
  const longest = new Array(bursts).fill(0);
  let window = 0;
  const drain = processor.drain;
  processor.drain = function (all) {
    const start = performance.now();
    drain.call(this, all);
    longest[window] = Math.max(longest[window], performance.now() - start);
  };
  const cpu = process.cpuUsage();
  for (let b = 0; b < bursts; b++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    window = b;
    for (let i = 0; i < BATCH; i++) tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { ...HELLO_SERVER_ATTRIBUTES, 'network.peer.port': 40000 + i } }).end();
  }
  await processor.forceFlush();
  const used = process.cpuUsage(cpu);
  await processor.shutdown();
  longest.sort((x, y) => x - y);
  const at = (q) => longest[Math.floor(longest.length * q)];
  return { p50: at(0.5), p90: at(0.9), max: longest.at(-1), over1: longest.filter((x) => x > 1).length, cpuUsPerSpan: (used.user + used.system) / (bursts * BATCH) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sink = await startSinkProcess('accept');
try {
  for (const protocol of Object.keys(PACKAGES)) {
    const rows = [];
    await round(protocol, sink, 5); // warm-up
    for (let r = 0; r < Number(values.rounds); r++) rows.push(await round(protocol, sink, Number(values.bursts)));
    const m = (k, digits = 2) => median(rows.map((x) => x[k])).toFixed(digits);
    console.log(
      `${process.version} ${protocol}: longest export turn per burst ${m('p50')} / ${m('p90')} / ${m('max')} ms (median / 90th percentile / longest), ` +
        `longer than 1 ms in ${m('over1', 0)} of ${values.bursts} bursts; CPU ${m('cpuUsPerSpan', 1)} µs per span`,
    );
  }
} finally {
  await sink.close();
}
