// Span creation: µs per span started and ended. The SDK's BasicTracerProvider (TRACEHOOK_TRACER=stock) against
// tracehook's LeanTracerProvider (lean) and the steps between: pooled ids alone, and the lean tracer still calling
// the sampler. The default hook's processors come first (open-span tracking, runtime context), then a sink that keeps
// the last 1024 ended spans (as a batch queue would hold them). Each round runs every variant once, each in a fresh
// process, in alternating order; the table has medians over rounds and of the per-round ratios variant / stock.
// Needs `npm run build` first.
// Usage: node bench/span.mjs [--rounds n] [--spans n]
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HELLO_SERVER_ATTRIBUTES } from './lib/http-span.mjs';

const require = createRequire(import.meta.url);
const { context, trace, ROOT_CONTEXT, SpanKind, TraceFlags } = require('@opentelemetry/api');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base');
const { LeanTracerProvider } = require('../dist/provider/lean-tracer-provider.js');
const { PooledIdGenerator } = require('../dist/provider/id-generator.js');
const { createSampler } = require('../dist/provider/sampler.js');
const { OpenSpanProcessor } = require('../dist/processors/open-span-processor.js');
const { RuntimeContextSpanProcessor } = require('../dist/processors/runtime-context-span-processor.js');

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '9' }, spans: { type: 'string', default: '100000' }, child: { type: 'string' } } });
const ROUNDS = Number(values.rounds);
const SPANS = Number(values.spans);

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

class Sink {
  kept = new Array(1024);
  n = 0;
  onStart() {}
  onEnd(span) {
    this.kept[this.n++ & 1023] = span;
  }
  forceFlush() {
    return Promise.resolve();
  }
  shutdown() {
    return Promise.resolve();
  }
}

const { ParentBasedSampler, AlwaysOnSampler } = require('@opentelemetry/sdk-trace-base');

/** The variants, one step at a time: the SDK's, with pooled ids only, the lean tracer with the sampler called, all of it. */
const VARIANTS = {
  stock: (config) => new BasicTracerProvider(config),
  'stock+ids': (config) => new BasicTracerProvider({ ...config, idGenerator: new PooledIdGenerator() }),
  'lean, sampler called': (config) => new LeanTracerProvider({ ...config, sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), idGenerator: new PooledIdGenerator() }),
  lean: (config) => new LeanTracerProvider({ ...config, idGenerator: new PooledIdGenerator() }),
};

function provider(kind) {
  return VARIANTS[kind]({ sampler: createSampler({}), spanProcessors: [new OpenSpanProcessor(), new RuntimeContextSpanProcessor(), new Sink()] });
}

const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true });

// What the HTTP server instrumentation makes per request: a SERVER span with its attributes, and a child INTERNAL span.
function run(tracer, n) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const server = tracer.startSpan(
      'GET',
      {
        kind: SpanKind.SERVER,
        attributes: { ...HELLO_SERVER_ATTRIBUTES },
      },
      remote,
    );
    const child = tracer.startSpan('work', undefined, trace.setSpan(remote, server));
    child.end();
    server.setAttribute('http.response.status_code', 200);
    server.end();
  }
  return Number(process.hrtime.bigint() - start) / 1000 / (2 * n);
}

if (values.child) {
  // One variant per process: with both span classes in one process V8's inline caches in the shared processors
  // see two shapes, which is not how an app runs.
  const tracer = provider(values.child).getTracer('bench');
  run(tracer, SPANS / 4); // warm-up
  process.stdout.write(String(run(tracer, SPANS / 2)));
} else {
  const once = (name) => Number(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', name, '--spans', String(SPANS)], { encoding: 'utf8' }));
  const names = Object.keys(VARIANTS);
  const results = Object.fromEntries(names.map((n) => [n, []]));
  const ratios = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    const us = {};
    for (const name of order) results[name].push((us[name] = once(name)));
    for (const name of names) ratios[name].push(us[name] / us.stock);
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(`node ${process.version}, ${ROUNDS} rounds, each variant in a fresh process: ${SPANS / 4} warm-up then ${SPANS} spans (half SERVER with 8 attributes, half INTERNAL children)`);
  console.log('| tracer | µs per span (median) | vs stock (median of per-round ratios) |');
  console.log('|---|---|---|');
  for (const name of names) console.log(`| ${name} | ${median(results[name]).toFixed(3)} | ${name === 'stock' ? '' : `×${median(ratios[name]).toFixed(2)}`} |`);
}
