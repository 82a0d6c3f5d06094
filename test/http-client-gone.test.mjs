// A SERVER span whose client went away before the response finished (gave up, cancelled, closed an
// event stream) ends then, with status ERROR and error.type, in both HTTP server instrumentations;
// the handler's child spans keep it as their parent.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { get, readSpans, spansDir, start } from './helpers/fixture.mjs';

const count = (app, path) => app.stdout.split('\n').filter((l) => l === `got ${path}`).length;

async function waitFor(check) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), 'condition met within 5 s');
}

/** Opens `n` requests to `path`, waits until the app has seen them all, then the clients go away. */
async function abandon(app, port, path, n, { afterFirstByte = false } = {}) {
  const before = count(app, path);
  const requests = [];
  for (let i = 0; i < n; i++) {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false });
    req.on('error', () => {});
    const firstByte = new Promise((r) => req.on('response', (res) => res.once('data', r)));
    requests.push({ req, firstByte });
  }
  await waitFor(() => count(app, path) === before + n);
  if (afterFirstByte) await Promise.all(requests.map((r) => r.firstByte));
  for (const { req } of requests) req.destroy();
}

for (const mode of ['fast', 'stock']) {
  test(`${mode}: 20 abandoned requests and 5 closed event streams each give a SERVER span with status ERROR and error.type`, async (t) => {
    const dir = spansDir(t);
    const app = start('request-data-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: mode } });
    t.after(() => app.kill('SIGKILL'));
    const [, port] = await app.ready();
    await abandon(app, port, '/slow', 20);
    await abandon(app, port, '/sse', 5, { afterFirstByte: true });
    assert.equal((await get(port, '/')).body, 'ok');
    app.kill('SIGTERM');
    await app.done;

    const spans = await readSpans(dir);
    const servers = (path) => spans.filter((s) => s.kind === 'SERVER' && s.attributes['url.path'] === path);
    for (const [path, n] of [
      ['/slow', 20],
      ['/sse', 5],
    ]) {
      const gone = servers(path);
      assert.equal(gone.length, n, `${n} SERVER spans for ${path}`);
      for (const s of gone) {
        assert.equal(s.status.code, 'ERROR', `${path} status`);
        assert.equal(s.attributes['error.type'], 'ECONNRESET');
        assert.equal(s.attributes['tracehook.incomplete'], undefined, 'ended when the client went away, not at exit');
      }
    }
    for (const s of servers('/sse')) assert.equal(s.attributes['http.response.status_code'], 200, 'headers had gone out');
    // The handler's child spans keep their SERVER parent (they end at exit, still open).
    const ids = new Set(servers('/slow').map((s) => s.spanId));
    const work = spans.filter((s) => s.name === 'slow-work');
    assert.equal(work.length, 20);
    for (const w of work) assert.ok(ids.has(w.parentSpanId), 'slow-work parent is a SERVER span in the file');
    const ok = servers('/');
    assert.equal(ok.length, 1);
    assert.equal(ok[0].status.code, 'UNSET');
    assert.equal(ok[0].attributes['error.type'], undefined);
  });
}
