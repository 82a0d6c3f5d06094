// Hostile requests through traced servers (real child processes): random Host values, paths, query
// strings with sensitive parameters, request ids, user agents, traceparent/tracestate/baggage and
// other headers over raw HTTP/1.1 (fast and stock HTTP server instrumentations), and random gRPC
// metadata to the gRPC fixture. Every span-file line must be strict OTLP/JSON, nothing sensitive may
// be kept, and no request-derived value may exceed its bound. FUZZ_SEED=n replays a run.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { FIXTURES, readSpans, spansDir, start } from './helpers/fixture.mjs';
import { readStrictOtlpJsonLine } from './helpers/otlp-json-strict.mjs';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const HTTP_RUNS = 250;
const GRPC_RUNS = 120;
const LIMIT = 2048;
const MARK = 'zzsecret';
const SENSITIVE = [
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
  'token',
  'access_token',
  'password',
  'api_key',
  'code',
  '%73ig',
  'to%6Ben',
];

const chars = (min, max, exclude = '') =>
  fc
    .integer({ min, max })
    .map((c) => String.fromCharCode(c))
    .filter((c) => c !== '\x7f' && !exclude.includes(c));
const latin1 = (maxLength, exclude) => fc.string({ unit: chars(0x20, 0xff, exclude), maxLength });
// Node's parser refuses bytes above 0x7e in the request target: those requests never reach a span.
const urlPart = (maxLength) => fc.string({ unit: chars(0x21, 0x7e, '&=#?'), maxLength });
const digits = fc.oneof(fc.nat(70000).map(String), fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String), fc.constantFrom('-1', '0x50', '', '1e3', '080', ' 80'));

const host = fc.oneof(
  latin1(40),
  fc.tuple(fc.stringMatching(/^[a-z0-9.-]{0,20}$/), digits).map(([h, p]) => `${h}:${p}`),
  fc.tuple(fc.ipV6(), digits).map(([h, p]) => `[${h}]:${p}`),
  fc.constantFrom('a:99999999999999999999', '[::1]', ':', '[', ']:80'),
  latin1(3000),
);
const queryPair = fc.oneof(
  fc.tuple(urlPart(12), urlPart(30)).map(([k, v]) => `${k}=${v}`),
  fc.tuple(fc.constantFrom(...SENSITIVE), fc.nat()).map(([k, n]) => `${k}=${MARK}${n}`),
  urlPart(20),
);
const hexId = (n) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const traceparent = fc.oneof(
  fc.tuple(hexId(32), hexId(16), fc.constantFrom('00', '01', 'ff')).map(([t, s, f]) => `00-${t}-${s}-${f}`),
  fc.tuple(fc.constantFrom('00', 'ff', '01', 'zz'), latin1(40), latin1(20)).map(([v, t, s]) => `${v}-${t}-${s}-01`),
  latin1(200),
);
const header = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), latin1(200));
const request = fc.record({
  path: urlPart(80),
  query: fc.option(fc.array(queryPair, { maxLength: 12 }).map((p) => p.join('&'))),
  host: fc.option(host, { freq: 20 }), // Node answers 400 to an HTTP/1.1 request without Host
  userAgent: fc.option(fc.oneof(latin1(200), latin1(4000))),
  requestId: fc.option(fc.oneof(fc.uuid(), latin1(200), fc.constant('x'.repeat(15 * 1024)))),
  traceparent: fc.option(traceparent),
  tracestate: fc.option(
    fc.oneof(
      latin1(600),
      fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_*/-]{0,20}$/), latin1(30, ',=')), { maxLength: 40 }).map((e) => e.map(([k, v]) => `${k}=${v}`).join(',')),
    ),
  ),
  baggage: fc.option(
    fc.oneof(
      latin1(800),
      fc.array(fc.tuple(urlPart(15), urlPart(40)), { maxLength: 30 }).map((e) => e.map(([k, v]) => `${k}=${v}`).join(',')),
    ),
  ),
  extra: fc.array(header, { maxLength: 4 }),
});

/** One raw HTTP/1.1 request; resolves with the status code (0 when the server closed without one). */
function send(port, r) {
  const lines = [`GET /f/${r.path}${r.query === null ? '' : `?${r.query}`} HTTP/1.1`];
  if (r.host !== null) lines.push(`Host: ${r.host}`);
  for (const [name, value] of [['user-agent', r.userAgent], ['x-request-id', r.requestId], ['traceparent', r.traceparent], ['tracestate', r.tracestate], ['baggage', r.baggage], ...r.extra]) {
    if (value !== null) lines.push(`${name}: ${value}`);
  }
  lines.push('Connection: close', '', '');
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let head = '';
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', (d) => (head += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
    socket.end(Buffer.from(lines.join('\r\n'), 'latin1'));
  });
}

async function inBatches(items, size, fn) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

/** Checks every line of every span file in `dir` strictly. @returns the raw text */
function checkLines(dir) {
  let text = '';
  for (const file of readdirSync(dir)) {
    const content = readFileSync(join(dir, file), 'utf8');
    text += content;
    content
      .split('\n')
      .filter(Boolean)
      .forEach((line, i) => {
        try {
          readStrictOtlpJsonLine(line);
        } catch (err) {
          assert.fail(`${file} line ${i + 1} is not strict OTLP/JSON (FUZZ_SEED=${SEED}): ${err.message}`);
        }
      });
  }
  return text;
}

function checkBounds(spans) {
  for (const s of spans) {
    for (const [key, value] of Object.entries(s.attributes)) {
      if (typeof value === 'string') assert.ok(value.length <= LIMIT, `${key} of ${value.length} chars (FUZZ_SEED=${SEED})`);
    }
    const port = s.attributes['server.port'];
    if (port !== undefined) assert.ok(Number.isInteger(port) && port >= 0 && port <= 65535, `server.port ${port}`);
    const id = s.attributes['tracehook.request.id'];
    if (id !== undefined) assert.match(id, /^[\x21-\x7e]{1,128}$/);
  }
}

test(`hostile HTTP requests (fast and stock) give strict OTLP/JSON, nothing sensitive, nothing beyond its bound (FUZZ_SEED=${SEED})`, async (t) => {
  const requests = fc.sample(request, { numRuns: HTTP_RUNS, seed: SEED });
  for (const mode of ['fast', 'stock']) {
    const dir = spansDir(t);
    // always_on: an incoming traceparent's unsampled flag must not hide a request from the checks.
    const app = start('request-data-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: mode, OTEL_TRACES_SAMPLER: 'always_on' } });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    const statuses = await inBatches(requests, 10, (r) => send(port, r));
    app.kill('SIGTERM');
    const { stderr, signal } = await app.done;
    assert.equal(signal, 'SIGTERM', 'the app was alive to the end');
    assert.doesNotMatch(stderr, /Error|TypeError|RangeError/, `no errors on stderr (${mode})`);

    const text = checkLines(dir);
    assert.ok(!text.includes(MARK), `no sensitive query value kept (${mode}, FUZZ_SEED=${SEED})`);
    const spans = await readSpans(dir);
    checkBounds(spans);
    const answered = statuses.filter((s) => s === 200).length;
    assert.ok(answered > HTTP_RUNS / 4, `most requests got through the parser (${answered})`);
    assert.equal(spans.filter((s) => s.kind === 'SERVER' && s.attributes['http.response.status_code'] === 200).length, answered, `one SERVER span per answered request (${mode})`);
  }
});

test(`hostile gRPC metadata gives strict OTLP/JSON (FUZZ_SEED=${SEED})`, async (t) => {
  const { grpc, greeter } = createRequire(import.meta.url)(join(FIXTURES, 'greeter.cjs'));
  const metadata = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom('traceparent', 'tracestate', 'baggage', 'x-request-id', 'grpc-timeout', 'user-agent'), fc.stringMatching(/^[a-z0-9_.-]{1,30}$/)),
      fc.oneof(fc.string({ unit: chars(0x20, 0x7e), maxLength: 300 }), traceparent, fc.constant('y'.repeat(8000))),
    ),
    { maxLength: 8 },
  );
  const calls = fc.sample(fc.record({ name: fc.string({ unit: 'grapheme', maxLength: 50 }), metadata }), { numRuns: GRPC_RUNS, seed: SEED });
  const dir = spansDir(t);
  const app = start('grpc-app.cjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_TRACES_SAMPLER: 'always_on' } });
  t.after(() => app.kill('SIGKILL'));
  const [, , grpcPort] = await app.ready(/listening (\d+) grpc (\d+)/);
  const client = new greeter.Greeter(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
  const results = await inBatches(calls, 10, ({ name, metadata: entries }) => {
    const md = new grpc.Metadata();
    for (const [k, v] of entries) {
      try {
        md.add(k, v);
      } catch {
        // grpc-js refuses some keys and values itself: they never reach the server.
      }
    }
    return new Promise((resolve) => client.sayHello({ name }, md, { deadline: Date.now() + 5000 }, (err) => resolve(err ? err.code : 0)));
  });
  client.close();
  app.kill('SIGTERM');
  // The fixture's own SIGTERM handler closes its servers: it ends with status 0.
  const { code, stderr } = await app.done;
  assert.equal(code, 0, `the app was alive to the end (stderr ${stderr})`);
  checkLines(dir);
  const spans = await readSpans(dir);
  checkBounds(spans);
  const ok = results.filter((c) => c === 0).length;
  assert.ok(ok > GRPC_RUNS / 2, `most calls succeeded (${ok})`);
  const servers = spans.filter((s) => s.kind === 'SERVER' && s.attributes['rpc.system'] === 'grpc');
  assert.ok(servers.length >= ok, `a SERVER span per successful call (${servers.length} of ${ok})`);
});
