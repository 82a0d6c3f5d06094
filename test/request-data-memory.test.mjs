// The span queue's memory bound holds for spans made from long request values: a value cut from a
// request is a copy that does not keep the whole request line or header alive (issue 29 item 10:
// with 7,000-character paths and user agents, a full 16 MiB queue held a 68.7 MB heap, because the
// cut values were V8 sliced strings retaining their parents).
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { startReceiver } from './helpers/otlp-receiver.mjs';
import { spansDir, start } from './helpers/fixture.mjs';

const BOUND = 4 * 1024 * 1024;

/** `total` GETs of `path` with `headers`, `concurrency` at a time on kept-alive connections. */
async function load(port, { total, concurrency, path, headers }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: path(next), headers, agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
    });
  const lane = async () => {
    while (next < total) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  agent.destroy();
}

const heap = (port) =>
  new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/heap', agent: false }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (body += d))
          .on('end', () => resolve(JSON.parse(body)));
      })
      .on('error', reject);
  });

for (const mode of ['fast', 'stock']) {
  test(`${mode}: a queue full of spans from 7,000-character paths and user agents holds at most 2x TRACEHOOK_MAX_QUEUE_BYTES of heap`, async (t) => {
    // An OTLP backend that accepts and never answers: nothing leaves the queue.
    const receiver = await startReceiver('hang');
    t.after(() => receiver.close());
    const app = start('request-heap-app.mjs', {
      preload: ['--expose-gc', '--import', '@tracehook/register'],
      env: {
        TRACEHOOK_SPANS_DIR: spansDir(t),
        TRACEHOOK_HTTP_INSTRUMENTATION: mode,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
        TRACEHOOK_MAX_QUEUE_BYTES: String(BOUND),
      },
    });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    // Warm up (JIT, the exporter's first request), then the baseline.
    await load(port, { total: 50, concurrency: 10, path: () => '/', headers: {} });
    const before = await heap(port);
    const long = 'p'.repeat(7000);
    const userAgent = `agent/${'u'.repeat(7000)}`;
    // Each value distinct, as a crawler's would be; the queue fills after ≈ 800 of these.
    await load(port, { total: 1500, concurrency: 20, path: (i) => `/${i}/${long}`, headers: { 'user-agent': userAgent } });
    const after = await heap(port);
    assert.ok(after.dropped > 0, `the queue filled: ${JSON.stringify(after)}`);
    const growth = after.heapUsed - before.heapUsed;
    console.log(
      `# ${mode}: heap +${(growth / 1048576).toFixed(1)} MiB with ${(after.queuedBytes / 1048576).toFixed(1)} MiB queued (estimated) and ${after.exporting} spans in the unanswered export, bound ${BOUND / 1048576} MiB`,
    );
    assert.ok(growth <= 2 * BOUND, `heap grew ${growth} bytes for a ${BOUND}-byte bound`);
  });
}
