// node:child_process, node:worker_threads, node:http (with node:net) and Node.js's perf_hooks implementation are not
// loaded by the preload (≈ 10 ms of every start; node:http ≈ 8 ms and ≈ 0.8 MiB of a one-line script or a worker thread): a traced process that does not use them loads none of them. The trace still crosses
// into a child process or worker thread however the app first loads those built-ins, used at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir } from './helpers/fixture.mjs';

const SERVE_ONE_REQUEST = `
  const http = require('node:http');
  const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', () => {
    const socket = require('node:net').connect(server.address().port, '127.0.0.1', () => socket.end('GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'));
    socket.resume().on('end', () => server.close(() => console.log(JSON.stringify(process.moduleLoadList))));
  });
`;
const END_ONE_SPAN = `
  require('@opentelemetry/api').trace.getTracer('script').startActiveSpan('work', (span) => span.end());
  console.log(JSON.stringify(process.moduleLoadList));
`;
const NOT_LOADED = ['NativeModule worker_threads', 'NativeModule internal/perf/performance', 'NativeModule perf_hooks', 'NativeModule https', 'NativeModule crypto'];
const CASES = [
  // listen() itself loads node:cluster, which loads node:child_process.
  { what: 'a traced http server serving a request loads no worker_threads, perf_hooks, https or crypto', code: SERVE_ONE_REQUEST, kind: 'SERVER', notLoaded: NOT_LOADED },
  {
    what: 'a script ending a span loads no child_process, worker_threads, perf_hooks, https, crypto, http or net',
    code: END_ONE_SPAN,
    kind: 'INTERNAL',
    notLoaded: ['NativeModule child_process', 'NativeModule http', 'NativeModule _http_agent', 'NativeModule net', ...NOT_LOADED],
  },
];

for (const preload of [
  ['--import', '@tracehook/register'],
  ['--require', '@tracehook/register'],
]) {
  for (const { what, code, kind, notLoaded } of CASES) {
    test(`${preload[0]}: ${what}`, async (t) => {
      const dir = spansDir(t);
      const r = await run(null, { command: [...preload, '-e', code], env: { TRACEHOOK_SPANS_DIR: dir } });
      assert.equal(r.code, 0, r.stderr);
      const loaded = JSON.parse(r.stdout);
      assert.deepEqual(
        notLoaded.filter((m) => loaded.includes(m)),
        [],
      );
      assert.equal((await readSpans(dir)).filter((s) => s.kind === kind).length, 1, 'the span was written');
    });
  }
}

for (const fixture of ['workers/lazy-builtins.mjs', 'workers/lazy-builtins.cjs']) {
  test(`${fixture}: loaded in the same turn as their first use, child processes and worker threads continue the trace`, async (t) => {
    const r = await run(fixture, { env: { TRACEHOOK_SPANS_DIR: spansDir(t) } });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    assert.equal(lines.length, 2, r.stdout);
    for (const [name, traceId, seen] of lines) assert.equal(seen, traceId, `${name}: the child or worker saw ${seen}, not the trace ${traceId}`);
  });
}
