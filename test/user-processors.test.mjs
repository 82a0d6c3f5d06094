// A user's startup hook registers its own SpanProcessor and SpanExporter: under TRACEHOOK_TRACER=lean they
// receive the same spans, field by field, as under the SDK's own tracer (stock), and the span files hold the
// same OTLP spans. Ids, times, ports and pids differ between any two runs: they are compared by what they
// refer to (ids by the span they name, times by shape and consistency), everything else exactly.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { run, spansDir } from './helpers/fixture.mjs';

const HOOK = './test/fixtures/hooks/user-processors.mjs:setupTracing';
/** Attributes whose values are timings or ephemeral ports: compared by type. */
const VARYING = new Set(['tracehook.batch.wait_ms', 'network.peer.port', 'client.port']);
const isHrTime = (v) => Array.isArray(v) && v.length === 2 && v.every(Number.isInteger) && v[1] >= 0 && v[1] < 1e9;

async function runApp(t, tracer, env = {}) {
  const recordsDir = spansDir(t);
  const dir = spansDir(t);
  const app = await run('lean-span-app.mjs', {
    env: { TRACEHOOK_TRACER: tracer, TRACEHOOK_STARTUP_HOOK: HOOK, USER_RECORDS_DIR: recordsDir, TRACEHOOK_SPANS_DIR: dir, ...env },
  });
  assert.equal(app.code, 0, app.stderr);
  assert.match(app.stdout, /worker replied 42\ndone/);
  const files = readdirSync(recordsDir).sort((a, b) => Number(a.split('-')[1].split('.')[0]) - Number(b.split('-')[1].split('.')[0]));
  assert.equal(files.length, 2, 'the main thread and the worker each ran the hook');
  const records = files.flatMap((f) => readLines(join(recordsDir, f)).map((r) => ({ thread: f.split('-')[1].split('.')[0], ...r })));
  const otlp = readdirSync(dir).flatMap((f) => readLines(join(dir, f)));
  return { records, otlp, stderr: app.stderr, port: Number(app.stdout.match(/listening (\d+)/)[1]), pid: Number(files[0].split('-')[0]) };
}

function readLines(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Names every id of a run by the span it belongs to: `<thread>:<name>#<n>`, the n-th span of that name started in that thread. */
function idLabels(records) {
  const labels = new Map();
  const seen = new Map();
  for (const r of records.filter((r) => r.phase === 'onStart')) {
    const key = `${r.thread}:${r.name}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    labels.set(r.spanContext.spanId, `span(${key}#${n})`);
    if (!labels.has(r.spanContext.traceId)) labels.set(r.spanContext.traceId, `trace(${key}#${n})`);
  }
  return labels;
}

/** A run's data with ids, times, pid and port replaced by what they stand for. */
function normalize(value, run, labels, key = '') {
  if (typeof value === 'string') {
    if (labels.has(value)) return labels.get(value);
    if (key === 'exception.stacktrace') return value.split('\n')[0];
    if (key.endsWith('UnixNano')) return /^\d+$/.test(value) ? 'time' : `bad time ${value}`;
    return value
      .replace(/\b[0-9a-f]{32}\b|\b[0-9a-f]{16}\b/g, (id) => labels.get(id) ?? id)
      .replaceAll(String(run.port), 'PORT')
      .replace(new RegExp(`\\b${run.pid}\\b`, 'g'), 'PID');
  }
  if (typeof value === 'number') {
    if (VARYING.has(key)) return 'number';
    return value === run.port ? 'PORT' : value === run.pid ? 'PID' : value;
  }
  if (Array.isArray(value)) {
    if (['startTime', 'endTime', 'duration', 'time'].includes(key) && isHrTime(value)) {
      return (value[0] === 0 && value[1] === 0) || (value[0] === -1 && value[1] === -1) ? value : 'hrtime';
    }
    if (key === 'duration' && value[0] === -1 && value[1] === -1) return value;
    return value.map((v) => normalize(v, run, labels, key));
  }
  if (value && typeof value === 'object') {
    // An OTLP attribute list entry: the key decides how its value is compared.
    if (typeof value.key === 'string' && value.value && VARYING.has(value.key)) return { key: value.key, value: Object.keys(value.value) };
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalize(v, run, labels, typeof value.key === 'string' && k === 'value' ? value.key : k);
    return out;
  }
  return value;
}

/** What the user's processor and exporter saw, normalized and sorted, without the span class. */
function userView(run) {
  const labels = idLabels(run.records);
  return run.records.map(({ class: _class, ...r }) => JSON.stringify(normalize(r, run, labels))).sort();
}

/** Every span of the span files with its resource and scope, normalized and sorted. */
function fileView(run) {
  const labels = idLabels(run.records);
  return run.otlp
    .flatMap((line) => line.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ resource: rs.resource, scope: ss.scope, span })))))
    .map((s) => JSON.stringify(normalize(s, run, labels)))
    .sort();
}

/** tracehook's diagnostics on stderr, ids named. */
function diagView(run) {
  return normalize(run.stderr, run, idLabels(run.records)).split('\n');
}

function checkTimes(run) {
  for (const r of run.records) {
    assert.ok(isHrTime(r.startTime), `${r.name} startTime ${r.startTime}`);
    if (r.phase === 'onStart') {
      assert.deepEqual([r.endTime, r.duration, r.ended], [[0, 0], [-1, -1], false], r.name);
      continue;
    }
    assert.ok(isHrTime(r.endTime) && isHrTime(r.duration), `${r.name} ${r.phase} endTime ${r.endTime} duration ${r.duration}`);
    const ns = (t) => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
    assert.equal(ns(r.endTime) - ns(r.startTime), ns(r.duration), `${r.name}: duration = end - start`);
    assert.equal(r.ended, r.phase !== 'onEnding', `${r.name} ${r.phase}: ended`);
  }
}

/** Equal line lists; on failure only the lines that differ are shown. */
function sameLines(lean, stock, what) {
  const onlyLean = lean.filter((l) => !stock.includes(l));
  const onlyStock = stock.filter((l) => !lean.includes(l));
  assert.deepEqual({ onlyLean, onlyStock }, { onlyLean: [], onlyStock: [] }, what);
  assert.deepEqual(lean, stock, `${what}: the same lines as often`);
}

function compareRuns(lean, stock) {
  assert.ok(lean.records.length > 80, `the fixture made its spans (${lean.records.length} records)`);
  assert.deepEqual(new Set(lean.records.map((r) => r.class)), new Set(['LeanSpan']), 'TRACEHOOK_TRACER=lean makes lean spans');
  assert.deepEqual(new Set(stock.records.map((r) => r.class)), new Set(['SpanImpl']), "TRACEHOOK_TRACER=stock makes the SDK's spans");
  checkTimes(lean);
  checkTimes(stock);
  sameLines(userView(lean), userView(stock), 'what the processor and exporter saw');
  sameLines(fileView(lean), fileView(stock), 'the span files');
  sameLines(diagView(lean), diagView(stock), 'the diagnostics');
}

test("a user's SpanProcessor and SpanExporter receive the same spans from the lean tracer as from the SDK's (HTTP, API, batch links, events, exceptions, worker PRODUCER/CONSUMER)", async (t) => {
  const lean = await runApp(t, 'lean');
  const stock = await runApp(t, 'stock');
  compareRuns(lean, stock);
  // The comparison covers what it claims to: each kind of span, links, events and exceptions are there.
  const ended = lean.records.filter((r) => r.phase === 'onEnd');
  const kinds = new Set(ended.map((r) => r.kind));
  assert.deepEqual([...kinds].sort(), [0, 1, 2, 3, 4]);
  assert.ok(ended.some((r) => r.name === 'batch batch' && r.links.length === 3 && r.links.every((l) => l.attributes?.['tracehook.batch.index'] !== undefined)));
  assert.ok(ended.some((r) => r.events.some((e) => e.name === 'exception' && e.attributes['exception.type'] === 'TypeError')));
  assert.ok(
    ended.some((r) => r.thread === '1' && r.kind === 4 && r.parentSpanContext?.isRemote === true),
    'a CONSUMER span in the worker',
  );
  assert.ok(
    ended.some((r) => r.kind === 1 && r.parentSpanContext?.isRemote && r.spanContext.traceState === 'vendor=x'),
    'an HTTP SERVER span continuing an incoming trace, trace state kept',
  );
  const manual = ended.find((r) => r.name === 'manual renamed');
  assert.deepEqual(Object.keys(manual.attributes), ['app.ok', 'app.num', 'app.bool', 'process.pid', 'thread.id'], 'invalid, null and undefined values dropped');
  assert.deepEqual(
    manual.links.map((l) => l.attributes),
    [{ 'link.n': 1 }, undefined, { 'link.late': true }],
  );
});

test('span limits (OTEL_SPAN_*_COUNT_LIMIT, OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT) cut and count the same under lean and stock', async (t) => {
  const env = {
    OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '4',
    OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '3',
    OTEL_SPAN_EVENT_COUNT_LIMIT: '2',
    OTEL_SPAN_LINK_COUNT_LIMIT: '2',
    OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT: '1',
    OTEL_LINK_ATTRIBUTE_COUNT_LIMIT: '1',
  };
  const lean = await runApp(t, 'lean', env);
  const stock = await runApp(t, 'stock', env);
  compareRuns(lean, stock);
  const manual = lean.records.find((r) => r.phase === 'onEnd' && r.name === 'manual renamed');
  assert.deepEqual(manual.attributes, { 'app.ok': 'yes', 'app.num': 1.5, 'app.bool': false, 'process.pid': lean.pid });
  assert.deepEqual(manual.dropped, [1, 1, 1]);
  assert.equal(manual.events.length, 2);
  assert.equal(manual.links.length, 2);
});

test("a user's own sampler (drops some spans, changes and adds attributes, sets a trace state) has the same effect under lean and stock", async (t) => {
  const lean = await runApp(t, 'lean', { USER_SAMPLER: '1' });
  const stock = await runApp(t, 'stock', { USER_SAMPLER: '1' });
  compareRuns(lean, stock);
  const ended = lean.records.filter((r) => r.phase === 'onEnd');
  assert.ok(!ended.some((r) => r.name === 'rooted'), 'the dropped span is not recorded');
  const manual = ended.find((r) => r.name === 'manual renamed');
  assert.equal(manual.spanContext.traceState, 'user=1');
  assert.deepEqual(Object.keys(manual.attributes), ['app.ok', 'app.num', 'app.bool', 'sampler.links', 'sampler.name', 'process.pid', 'thread.id']);
  assert.deepEqual([manual.attributes['sampler.links'], manual.attributes['sampler.name']], [2, 'manual']);
});
