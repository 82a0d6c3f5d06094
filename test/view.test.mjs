// Decoder, trace tree and `tracehook view` on span files written here from real SDK spans,
// serialized by @opentelemetry/otlp-transformer's JsonTraceSerializer (what the embedded default
// exporter writes, one ExportTraceServiceRequest per line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, createTraceState, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { decodeSpanLine, readSpanDir, readSpanFile, readSpans } from '../dist/span-file/decode.js';
import { buildTraces, renderTrace, sortParentFirst } from '../dist/span-file/tree.js';
import { runView } from '../dist/cli/view.js';

const T0 = 1_700_000_000; // seconds; span times below are T0 + a few ms
const at = (ms) => [T0 + Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];
const nanos = (ms) => BigInt(T0) * 1_000_000_000n + BigInt(Math.round(ms * 1e6));

const UPSTREAM = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceState: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7' };

/** A TracerProvider standing for one process; span ids count up so the text output is stable. */
function fakeProcess(service, pid, ids) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'process.pid': pid, 'thread.id': 0 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    idGenerator: {
      generateTraceId: () => (++ids.trace).toString(16).padStart(32, '0'),
      generateSpanId: () => (++ids.span).toString(16).padStart(16, '0'),
    },
  });
  const tracer = provider.getTracer('@opentelemetry/instrumentation-http', '0.223.0');
  /** One OTLP/JSON line holding every span ended so far, as the file exporter writes it. */
  const line = () => {
    const bytes = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
    exporter.reset();
    return new TextDecoder().decode(bytes);
  };
  return { tracer, line };
}

/**
 * The front receives a request with an upstream traceparent, calls pricing over gRPC (fails)
 * and the downstream over HTTP. Returns the span file lines of both processes.
 */
function frontAndDownstream() {
  const ids = { trace: 0, span: 0 };
  const front = fakeProcess('front', 100, ids);
  const down = fakeProcess('downstream', 200, ids);
  const upstream = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: UPSTREAM.traceId,
    spanId: UPSTREAM.spanId,
    traceFlags: 1,
    isRemote: true,
    traceState: createTraceState(UPSTREAM.traceState),
  });
  const server = front.tracer.startSpan(
    'GET /order',
    {
      kind: SpanKind.SERVER,
      startTime: at(0),
      attributes: { 'http.request.method': 'GET', 'url.path': '/order', 'url.query': 'item=book', 'http.response.status_code': 200 },
      links: [{ context: { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), traceFlags: 1 }, attributes: { reason: 'batch' } }],
    },
    upstream,
  );
  const inServer = trace.setSpan(upstream, server);
  const grpcCall = front.tracer.startSpan('grpc.demo.Pricing/GetQuote', { kind: SpanKind.CLIENT, startTime: at(1) }, inServer);
  grpcCall.setAttributes({ 'rpc.system': 'grpc', 'rpc.grpc.status_code': 5 });
  grpcCall.setStatus({ code: SpanStatusCode.ERROR, message: 'no price for item "book"' });
  grpcCall.recordException(new Error('5 NOT_FOUND: no price for item "book"'), at(14));
  const httpCall = front.tracer.startSpan('GET', { kind: SpanKind.CLIENT, startTime: at(2) }, inServer);
  httpCall.setAttributes({ 'http.request.method': 'GET', 'url.full': 'http://127.0.0.1:4001/stock?item=book', 'http.response.status_code': 200 });
  const remote = trace.setSpanContext(ROOT_CONTEXT, { ...httpCall.spanContext(), isRemote: true });
  const downServer = down.tracer.startSpan('GET /stock', { kind: SpanKind.SERVER, startTime: at(4) }, remote);
  downServer.addEvent('cache miss', { key: 'book', ratio: 0.25, hit: false }, at(5));
  downServer.end(at(10.5));
  httpCall.end(at(12));
  grpcCall.end(at(15));
  server.end(at(20));
  return { front: front.line(), downstream: down.line() };
}

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-view-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Captures what runView writes. */
function io(env = {}) {
  const out = { stdout: '', stderr: '' };
  const sink = (key) => ({
    write: (text, cb) => {
      out[key] += text;
      cb?.();
      return true;
    },
  });
  return { out, io: { stdout: sink('stdout'), stderr: sink('stderr'), env } };
}

test('decodeSpanLine flattens a JsonTraceSerializer request into spans', () => {
  const { front } = frontAndDownstream();
  const spans = decodeSpanLine(front, '/spans/100.jsonl');
  assert.equal(spans.length, 3);
  const server = spans.find((s) => s.kind === 'SERVER');
  assert.deepEqual(server, {
    traceId: UPSTREAM.traceId,
    spanId: server.spanId,
    parentSpanId: UPSTREAM.spanId,
    traceState: UPSTREAM.traceState,
    name: 'GET /order',
    kind: 'SERVER',
    startTimeUnixNano: nanos(0),
    endTimeUnixNano: nanos(20),
    durationMs: 20,
    attributes: { 'http.request.method': 'GET', 'url.path': '/order', 'url.query': 'item=book', 'http.response.status_code': 200 },
    events: [],
    links: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), attributes: { reason: 'batch' } }],
    status: { code: 'UNSET' },
    resource: { 'service.name': 'front', 'process.pid': 100, 'thread.id': 0 },
    scope: { name: '@opentelemetry/instrumentation-http', version: '0.223.0' },
    file: '/spans/100.jsonl',
  });
  assert.match(server.spanId, /^[0-9a-f]{16}$/);
  const grpcCall = spans.find((s) => s.name === 'grpc.demo.Pricing/GetQuote');
  assert.equal(grpcCall.kind, 'CLIENT');
  assert.equal(grpcCall.parentSpanId, server.spanId);
  assert.deepEqual(grpcCall.status, { code: 'ERROR', message: 'no price for item "book"' });
  assert.equal(grpcCall.attributes['rpc.grpc.status_code'], 5);
});

test('decodeSpanLine reads events, numbers and every AnyValue kind', () => {
  const [down] = decodeSpanLine(frontAndDownstream().downstream);
  assert.deepEqual(down.events, [{ name: 'cache miss', timeUnixNano: nanos(5), attributes: { key: 'book', ratio: 0.25, hit: false } }]);
  assert.equal(down.durationMs, 6.5);
  assert.equal(down.file, '');

  // Written by hand: kinds the SDK API does not produce (kvlist, bytes, int64 beyond 2^53 as a
  // string), enum names instead of numbers, and an all-zero parent id meaning "root".
  const line = JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'x' } }] },
        scopeSpans: [
          {
            scope: { name: 's' },
            spans: [
              {
                traceId: 'AAECAwQFBgcICQoLDA0ODw==', // base64 of bytes 00..0f, as the generic proto3 JSON mapping writes ids
                spanId: '0102030405060708',
                parentSpanId: '0000000000000000',
                name: 'n',
                kind: 'SPAN_KIND_CONSUMER',
                startTimeUnixNano: 1,
                endTimeUnixNano: '2000001',
                attributes: [
                  { key: 'small', value: { intValue: '42' } },
                  { key: 'huge', value: { intValue: '9223372036854775807' } },
                  { key: 'bytes', value: { bytesValue: 'AQID' } },
                  { key: 'kv', value: { kvlistValue: { values: [{ key: 'a', value: { arrayValue: { values: [{ boolValue: true }, { doubleValue: 1.5 }] } } }] } } },
                  { key: 'empty', value: {} },
                ],
                status: { code: 'STATUS_CODE_OK' },
              },
            ],
          },
        ],
      },
    ],
  });
  const [span] = decodeSpanLine(line);
  assert.equal(span.traceId, '000102030405060708090a0b0c0d0e0f');
  assert.equal('parentSpanId' in span, false);
  assert.equal(span.kind, 'CONSUMER');
  assert.equal(span.durationMs, 2);
  assert.deepEqual(span.status, { code: 'OK' });
  assert.deepEqual(span.scope, { name: 's' });
  assert.deepEqual(span.attributes, {
    small: 42,
    huge: 9223372036854775807n,
    bytes: new Uint8Array([1, 2, 3]),
    kv: { a: [true, 1.5] },
    empty: undefined,
  });
});

test('decodeSpanLine rejects what is not a trace export request', () => {
  assert.throws(() => decodeSpanLine('{"resourceSpans":[{"scopeSp'), SyntaxError);
  assert.throws(() => decodeSpanLine('{"resourceLogs":[]}'), /no "resourceSpans" array/);
  assert.throws(() => decodeSpanLine('{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz","spanId":"0102030405060708","name":"n"}]}]}]}'), /traceId/);
});

test('readSpanFile skips and counts a truncated last line and a corrupt line, ignores blank lines', async (t) => {
  const dir = tempDir(t);
  const { front, downstream } = frontAndDownstream();
  const file = join(dir, '100.jsonl');
  writeFileSync(file, `${front}\n\nnot json\n${downstream}\n${front.slice(0, 40)}`);
  assert.equal((await readSpanFile(file)).length, 4);
  const read = await readSpans([file]);
  assert.deepEqual(read.files, [file]);
  assert.deepEqual(
    read.skipped.map(({ line, truncated }) => ({ line, truncated })),
    [
      { line: 3, truncated: false },
      { line: 5, truncated: true },
    ],
  );
  assert.ok(read.spans.every((s) => s.file === file));
});

test('readSpanDir reads every *.jsonl file of a directory; a missing directory gives []', async (t) => {
  const dir = tempDir(t);
  const { front, downstream } = frontAndDownstream();
  writeFileSync(join(dir, '100.jsonl'), `${front}\n`);
  writeFileSync(join(dir, '200.jsonl'), `${downstream}\n`);
  writeFileSync(join(dir, 'notes.txt'), 'not a span file');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', '300.jsonl'), `${downstream}\n`);
  const spans = await readSpanDir(dir);
  assert.deepEqual(spans.map((s) => s.resource['service.name']).sort(), ['downstream', 'front', 'front', 'front']);
  assert.deepEqual(await readSpanDir(join(dir, 'does-not-exist')), []);
});

test('buildTraces links spans across files parent-first and marks a span whose parent is in no file', () => {
  const { front, downstream } = frontAndDownstream();
  const spans = [...decodeSpanLine(downstream, '200.jsonl'), ...decodeSpanLine(front, '100.jsonl')];
  const [tr] = buildTraces(spans);
  assert.equal(tr.traceId, UPSTREAM.traceId);
  assert.deepEqual(
    tr.spans.map((n) => [n.depth, n.span.name, n.span.kind, n.missingParentSpanId]),
    [
      [0, 'GET /order', 'SERVER', UPSTREAM.spanId],
      [1, 'grpc.demo.Pricing/GetQuote', 'CLIENT', undefined],
      [1, 'GET', 'CLIENT', undefined],
      [2, 'GET /stock', 'SERVER', undefined],
    ],
  );
  assert.deepEqual(tr.services, ['front', 'downstream']);
  assert.deepEqual(tr.processes, ['front[100]', 'downstream[200]']);
  assert.equal(tr.durationMs, 20);
  assert.equal(tr.startTimeUnixNano, nanos(0));
});

test('buildTraces is deterministic: input order does not matter, traces sort by start time', () => {
  const a = frontAndDownstream();
  const spans = [...decodeSpanLine(a.front), ...decodeSpanLine(a.downstream)];
  // A second, earlier trace: a lone root span with a different trace id.
  const early = structuredClone(spans[0]);
  Object.assign(early, { traceId: 'f'.repeat(32), spanId: 'e'.repeat(16), startTimeUnixNano: nanos(-5) });
  delete early.parentSpanId;
  const forward = buildTraces([...spans, early]);
  const backward = buildTraces([early, ...spans].reverse());
  assert.deepEqual(
    forward.map((t) => t.traceId),
    ['f'.repeat(32), UPSTREAM.traceId],
  );
  assert.equal(forward.map(renderTrace).join(''), backward.map(renderTrace).join(''));
  assert.deepEqual(
    sortParentFirst([...spans].reverse()).map((s) => s.name),
    ['GET /order', 'grpc.demo.Pricing/GetQuote', 'GET', 'GET /stock'],
  );
});

test('buildTraces keeps spans of a parent cycle (corrupt input) instead of looping or dropping them', () => {
  const [a, b] = decodeSpanLine(frontAndDownstream().front);
  const x = { ...a, parentSpanId: b.spanId };
  const y = { ...b, parentSpanId: a.spanId };
  const [tr] = buildTraces([x, y]);
  assert.equal(tr.spans.length, 2);
  assert.equal(tr.roots.length, 1);
});

test('renderTrace draws one aligned line per span: offset, name, kind, duration, status, process, detail', () => {
  const { front, downstream } = frontAndDownstream();
  const [tr] = buildTraces([...decodeSpanLine(front), ...decodeSpanLine(downstream)]);
  const ids = tr.spans.map((n) => n.span.spanId);
  assert.equal(ids.length, 4);
  assert.equal(
    renderTrace(tr),
    [
      'trace 4bf92f3577b34da6a3ce929d0e0e4736  4 spans  2 processes (front, downstream)  20.0 ms  tracestate congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
      '  +0.0 ms  ⋯ GET /order                     SERVER  20.0 ms  UNSET  front[100]       GET /order?item=book → 200  (parent 00f067aa0ba902b7 not in span files)',
      '  +1.0 ms    ├─ grpc.demo.Pricing/GetQuote  CLIENT  14.0 ms  ERROR  front[100]       grpc status 5  Error "no price for item \\"book\\""',
      '  +2.0 ms    └─ GET                         CLIENT  10.0 ms  UNSET  front[100]       GET http://127.0.0.1:4001/stock?item=book → 200',
      '  +4.0 ms       └─ GET /stock               SERVER   6.5 ms  UNSET  downstream[200]',
      '',
    ].join('\n'),
  );
});

test('runView prints the trees of a directory, by default $TRACEHOOK_SPANS_DIR', async (t) => {
  const dir = tempDir(t);
  const { front, downstream } = frontAndDownstream();
  writeFileSync(join(dir, '100.jsonl'), `${front}\n`);
  writeFileSync(join(dir, '200.jsonl'), `${downstream}\n`);
  const { out, io: captured } = io({ TRACEHOOK_SPANS_DIR: dir });
  assert.equal(await runView([], captured), 0);
  assert.match(out.stdout, /^trace 4bf92f3577b34da6a3ce929d0e0e4736 {2}4 spans/);
  assert.match(out.stdout, /└─ GET \/stock +SERVER/);
  assert.equal(out.stderr, '');
});

test('runView --trace filters by trace id prefix; --json passes on OTLP/JSON lines of the traces shown', async (t) => {
  const dir = tempDir(t);
  const { front, downstream } = frontAndDownstream();
  const file = join(dir, '100.jsonl');
  const other = front.replace(/4bf92f3577b34da6a3ce929d0e0e4736/g, '1'.repeat(32));
  writeFileSync(file, `${front}\n${downstream}\n${other}\n`);

  const text = io();
  assert.equal(await runView([dir, '--trace', '4BF92F'], text.io), 0);
  assert.equal(text.out.stdout.match(/^trace /gm).length, 1);

  const json = io();
  assert.equal(await runView([file, '--json', `--trace=${'1'.repeat(32)}`], json.io), 0);
  // The file's own line, byte for byte: all its spans belong to the trace shown.
  assert.equal(json.out.stdout, `${other}\n`);

  const both = io();
  assert.equal(await runView([file, '--json', '--trace', '4bf92f'], both.io), 0);
  const lines = both.out.stdout.trimEnd().split('\n');
  assert.deepEqual(lines, [front, downstream]);
  assert.deepEqual(
    lines.flatMap((l) => decodeSpanLine(l)).map((s) => s.traceId),
    Array(4).fill(UPSTREAM.traceId),
  );
});

test('runView --json rebuilds a line whose spans belong to several traces, keeping only those shown', async (t) => {
  const dir = tempDir(t);
  const { front } = frontAndDownstream();
  const request = JSON.parse(front);
  const mixed = structuredClone(request);
  mixed.resourceSpans[0].scopeSpans[0].spans[1].traceId = '2'.repeat(32);
  writeFileSync(join(dir, '1.jsonl'), `${JSON.stringify(mixed)}\n`);
  const { out, io: captured } = io();
  assert.equal(await runView([dir, '--json', '--trace', '2222'], captured), 0);
  const [line, ...rest] = out.stdout.trimEnd().split('\n');
  assert.deepEqual(rest, []);
  const spans = decodeSpanLine(line);
  assert.deepEqual(
    spans.map((s) => [s.traceId, s.name]),
    [['2'.repeat(32), mixed.resourceSpans[0].scopeSpans[0].spans[1].name]],
  );
  assert.equal(spans[0].resource['service.name'], 'front');
});

test('runView warns about skipped lines but still prints what it could read', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, '100.jsonl'), `${frontAndDownstream().front}\n{"resourceSpans":[{"res`);
  const { out, io: captured } = io();
  assert.equal(await runView([dir], captured), 0);
  assert.match(out.stderr, /skipped 1 line that is not valid OTLP\/JSON:\n {2}.*100\.jsonl:2 \(truncated last line\)/);
  assert.match(out.stdout, /^trace /);
});

test('runView exits 1 with a message naming the argument when there is nothing to show', async (t) => {
  const dir = tempDir(t);
  const cases = [
    [[join(dir, 'nope')], new RegExp(`^tracehook view: ${join(dir, 'nope')}: no such file or directory\n$`)],
    [[], /^tracehook view: no spans found: .*missing does not exist \(pass a directory or file, or set TRACEHOOK_SPANS_DIR\)\n$/],
    [[dir], /^tracehook view: no span files \(\*\.jsonl\) in .*\n$/],
    [['--trace', 'xyz', dir], /^tracehook view: --trace: expected a trace id \(32 hex chars, or a prefix of one\), got "xyz"\n$/],
    [['--trace'], /^tracehook view: Option '--trace <value>' argument missing \(see tracehook view --help\)\n$/],
    [['--colour'], /^tracehook view: Unknown option '--colour' \(see tracehook view --help\)\n$/],
  ];
  for (const [argv, expected] of cases) {
    const { out, io: captured } = io({ TRACEHOOK_SPANS_DIR: join(dir, 'missing') });
    assert.equal(await runView(argv, captured), 1, argv.join(' '));
    assert.match(out.stderr, expected);
    assert.equal(out.stdout, '');
  }
  writeFileSync(join(dir, '1.jsonl'), '\n');
  const empty = io();
  assert.equal(await runView([dir], empty.io), 1);
  assert.match(empty.out.stderr, /no spans in 1 span file under/);
  writeFileSync(join(dir, '1.jsonl'), `${frontAndDownstream().front}\n`);
  const other = io();
  assert.equal(await runView([dir, '--trace', 'abc'], other.io), 1);
  assert.match(other.out.stderr, /--trace: no trace id starts with abc in .* \(1 trace read\)/);
});

test('runView --help prints usage and exits 0', async () => {
  const { out, io: captured } = io();
  assert.equal(await runView(['--help'], captured), 0);
  assert.match(out.stdout, /^Usage: tracehook view \[DIR\|FILE\.\.\.\] \[filters\] \[--list\] \[--verbose\] \[--json\] \[--html FILE\]/);
  for (const flag of ['--service', '--errors', '--min-duration', '--since', '--until', '--trace', '--name', '--sort', '--limit']) {
    assert.ok(out.stdout.includes(flag), flag);
  }
});

test('the tracehook bin dispatches `view` to runView', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, '100.jsonl'), `${frontAndDownstream().front}\n`);
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/tracehook.mjs', 'view', dir], { cwd: new URL('..', import.meta.url) });
  assert.match(stdout, /^trace 4bf92f3577b34da6a3ce929d0e0e4736 {2}3 spans {2}1 process \(front\)/);
});

/**
 * Four one-process traces written as span file lines: `checkout` 30 ms OK at +0, `search` 5 ms
 * ERROR at +1 s, `checkout` 120 ms OK at +2 s (with a child `SELECT orders` in `db`), `search`
 * 1 ms OK at +3 s. Returns the lines and the trace ids in that order.
 */
function fourTraces() {
  const ids = { trace: 0, span: 0 };
  const procs = { checkout: fakeProcess('checkout', 10, ids), search: fakeProcess('search', 20, ids), db: fakeProcess('db', 30, ids) };
  const traceIds = [];
  const make = (service, name, startMs, durMs, error) => {
    const span = procs[service].tracer.startSpan(name, { kind: SpanKind.SERVER, startTime: at(startMs) });
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    if (name === 'POST /checkout') {
      const child = procs.db.tracer.startSpan('SELECT orders', { kind: SpanKind.CLIENT, startTime: at(startMs + 1) }, trace.setSpan(ROOT_CONTEXT, span));
      child.end(at(startMs + 2));
    }
    span.end(at(startMs + durMs));
    traceIds.push(span.spanContext().traceId);
  };
  make('checkout', 'GET /cart', 0, 30);
  make('search', 'GET /search', 1000, 5, true);
  make('checkout', 'POST /checkout', 2000, 120);
  make('search', 'GET /search', 3000, 1);
  return { lines: [procs.checkout.line(), procs.search.line(), procs.db.line()], traceIds };
}

test('runView filters: --service, --errors, --min-duration, --since/--until, --name, and combinations', async (t) => {
  const dir = tempDir(t);
  const { lines, traceIds } = fourTraces();
  writeFileSync(join(dir, 'all.jsonl'), `${lines.join('\n')}\n`);
  const listed = async (...args) => {
    const { out, io: captured } = io();
    const code = await runView([dir, '--list', ...args], captured);
    return code === 0
      ? out.stdout
          .trimEnd()
          .split('\n')
          .map((l) => traceIds.indexOf(/\b[0-9a-f]{32}\b/.exec(l)[0]))
      : out.stderr;
  };
  const iso = (ms) => new Date(T0 * 1000 + ms).toISOString();
  assert.deepEqual(await listed(), [0, 1, 2, 3]);
  assert.deepEqual(await listed('--service', 'search'), [1, 3]);
  assert.deepEqual(await listed('--service', 'db'), [2]);
  assert.deepEqual(await listed('--service', 'db', '--service', 'search'), [1, 2, 3]);
  assert.deepEqual(await listed('--errors'), [1]);
  assert.deepEqual(await listed('--min-duration', '30ms'), [0, 2]);
  assert.deepEqual(await listed('--min-duration', '0.1s'), [2]);
  assert.deepEqual(await listed('--min-duration', '4000us', '--service', 'search'), [1]);
  assert.deepEqual(await listed('--since', iso(1000)), [1, 2, 3]);
  assert.deepEqual(await listed('--since', iso(500), '--until', iso(2500)), [1, 2]);
  assert.deepEqual(await listed('--name', 'GET /*'), [0, 1, 3]);
  assert.deepEqual(await listed('--name', 'SELECT ?rders'), [2]);
  assert.deepEqual(await listed('--name', 'GET'), 'tracehook view: no trace matches --name GET in ' + dir + ' (4 traces read)\n');
  assert.deepEqual(await listed('--since', '1h'), `tracehook view: no trace matches --since 1h in ${dir} (4 traces read)\n`);
  assert.deepEqual(await listed('--sort', 'duration'), [2, 0, 1, 3]);
  assert.deepEqual(await listed('--sort', 'duration', '--limit', '2'), [2, 0]);
  for (const [args, message] of [
    [['--min-duration', 'fast'], /--min-duration: expected a duration such as 250ms, 1.5s or 800us, got "fast"/],
    [['--since', 'yesterday'], /--since: expected an ISO 8601 date or time .* got "yesterday"/],
    [['--sort', 'size'], /--sort: expected time or duration, got "size"/],
    [['--json', '--list'], /--list and --json cannot be combined/],
  ]) {
    assert.match(await listed(...args), message);
  }
});

test('runView --list prints one aligned line per trace: start, id, duration, spans, status, root (service), services', async (t) => {
  const dir = tempDir(t);
  const { lines, traceIds } = fourTraces();
  writeFileSync(join(dir, 'all.jsonl'), `${lines.join('\n')}\n`);
  const { out, io: captured } = io();
  assert.equal(await runView([dir, '--list'], captured), 0);
  assert.equal(
    out.stdout,
    [
      `2023-11-14 22:13:20.000Z  ${traceIds[0]}   30.0 ms  1 span   OK       GET /cart (checkout)       checkout`,
      `2023-11-14 22:13:21.000Z  ${traceIds[1]}    5.0 ms  1 span   ERROR×1  GET /search (search)       search`,
      `2023-11-14 22:13:22.000Z  ${traceIds[2]}  120.0 ms  2 spans  OK       POST /checkout (checkout)  checkout, db`,
      `2023-11-14 22:13:23.000Z  ${traceIds[3]}    1.0 ms  1 span   OK       GET /search (search)       search`,
      '',
    ].join('\n'),
  );
});

test('runView --verbose shows attributes, events with exception messages, and links under each span', async (t) => {
  const dir = tempDir(t);
  const { front, downstream } = frontAndDownstream();
  writeFileSync(join(dir, '1.jsonl'), `${front}\n${downstream}\n`);
  const { out, io: captured } = io();
  assert.equal(await runView([dir, '--verbose'], captured), 0);
  const text = out.stdout;
  assert.match(text, /GET \/order .*\n +│ http\.request\.method = "GET"\n/);
  assert.match(text, /│ +link → trace abababababababababababababababab span cdcdcdcdcdcdcdcd {2}reason="batch"/);
  assert.match(text, /rpc\.grpc\.status_code = 5\n.*event \+14\.0 ms exception {2}exception\.type="Error" {2}exception\.message="5 NOT_FOUND: no price for item \\"book\\""/);
  assert.match(text, /event \+5\.0 ms cache miss {2}key="book" {2}ratio=0\.25 {2}hit=false/);
  // Without --verbose: none of it.
  const plain = io();
  await runView([dir], plain.io);
  assert.doesNotMatch(plain.out.stdout, /http\.request\.method|event|link →/);
});

test('runView colours on a TTY only, never with NO_COLOR; FORCE_COLOR forces them', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, '1.jsonl'), `${frontAndDownstream().front}\n`);
  const run = async (isTTY, env, args = []) => {
    const { out, io: captured } = io(env);
    captured.stdout.isTTY = isTTY;
    assert.equal(await runView([dir, ...args], captured), 0);
    return out.stdout;
  };
  const ansi = /\x1b\[\d+m/;
  const tty = await run(true, {});
  assert.match(tty, ansi);
  assert.match(tty, /\x1b\[31mERROR\x1b\[39m/);
  assert.equal(tty.replace(/\x1b\[\d+m/g, ''), await run(false, {}));
  assert.doesNotMatch(await run(false, {}), ansi);
  assert.doesNotMatch(await run(true, { NO_COLOR: '1' }), ansi);
  assert.doesNotMatch(await run(true, { NO_COLOR: '1' }, ['--list']), ansi);
  assert.match(await run(false, { FORCE_COLOR: '1' }, ['--list']), ansi);
});

test('runView reads a directory line by line: many lines, a corrupt line and a cut last line are counted', async (t) => {
  const dir = tempDir(t);
  const { front, downstream } = frontAndDownstream();
  // 3000 copies of the same two lines with fresh trace ids: 3000 traces, 12,000 spans.
  const parts = [];
  for (let i = 0; i < 3000; i++) {
    const id = (i + 1).toString(16).padStart(32, 'a');
    parts.push(front.replaceAll(UPSTREAM.traceId, id), downstream.replaceAll(UPSTREAM.traceId, id));
  }
  writeFileSync(join(dir, 'big.jsonl'), `${parts.join('\n')}\nnot json\n${front.slice(0, 100)}`);
  const { out, io: captured } = io();
  assert.equal(await runView([dir, '--list', '--limit', '5'], captured), 0);
  assert.equal(out.stdout.trimEnd().split('\n').length, 5);
  assert.match(out.stderr, /skipped 2 lines that are not valid OTLP\/JSON:\n {2}.*big\.jsonl:6001: .*\n {2}.*big\.jsonl:6002 \(truncated last line\)/);
  const one = io();
  assert.equal(await runView([dir, '--trace', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaabb8'], one.io), 0);
  assert.equal(one.out.stdout.match(/^trace /gm).length, 1);
  assert.match(one.out.stdout, /4 spans {2}2 processes/);
});
