// Issue 33, item 1: a route's uncaught error gives the SERVER span its reason (status message, `error.type` and an
// `exception` event with type, message and a bounded stack) for Express 4/5, Fastify 4/5, Koa with @koa/router and
// NestJS on Express, in the fast and the stock HTTP modes, with no span per middleware. A 4xx (a thrown 404, a
// validation 400) stays UNSET and keeps the event; Fastify's validation 400 keeps its route; `tracehook view` prints
// the message on the failing span's line, and the page (`view --html`, in Chromium) shows it in the span's details.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { noBrowser, openBrowser } from './helpers/browser.mjs';
import { ROOT, get, readSpans, spansDir, start } from './helpers/fixture.mjs';
import { routeApps } from './helpers/route-apps.mjs';

const APPS = routeApps();
const STACK_LIMIT = 4096;

const exceptionOf = (span) => span.events.find((e) => e.name === 'exception')?.attributes;

async function post(port, path, body) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.text();
  return res.status;
}

for (const mode of ['fast', 'stock']) {
  for (const [name, fixture, env, preload, cwd] of APPS) {
    const fastify = name.startsWith('fastify');
    const expressCjs = name === 'express' || name === 'express 4';
    test(`${name}, ${mode}: a thrown TypeError makes the SERVER span ERROR with its message and exception event; a 4xx stays UNSET`, async (t) => {
      const dir = spansDir(t);
      const app = start(fixture, { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'app', NODE_ENV: 'test', TRACEHOOK_HTTP_INSTRUMENTATION: mode, ...env }, preload, cwd });
      t.after(() => app.kill('SIGKILL'));
      const [, port] = await app.ready();
      assert.equal((await get(port, '/boom/42')).status, 500);
      assert.equal((await get(port, '/gone/7')).status, 404);
      assert.equal((await get(port, '/nothing/here')).status, 404);
      if (fastify) assert.equal(await post(port, '/users', {}), 400);
      if (expressCjs) assert.equal((await get(port, '/api/fail')).status, 503);
      app.kill();
      await app.done;
      const spans = await readSpans(dir);
      assert.deepEqual(
        spans.filter((s) => s.kind !== 'SERVER').map((s) => s.name),
        [],
        'no span per middleware or handler',
      );
      const byPath = (path) => spans.find((s) => s.attributes['url.path'] === path);

      const boom = byPath('/boom/42');
      assert.equal(boom.name, 'GET /boom/:id');
      assert.equal(boom.status.code, 'ERROR');
      assert.match(boom.status.message, /boom: user 42 missing/);
      assert.equal(boom.attributes['error.type'], 'TypeError');
      const thrown = exceptionOf(boom);
      assert.equal(thrown?.['exception.type'], 'TypeError', `events: ${boom.events.map((e) => e.name)}`);
      assert.equal(thrown['exception.message'], 'boom: user 42 missing');
      assert.match(thrown['exception.stacktrace'], /^TypeError: boom: user 42 missing\n {4}at /);
      assert.ok(thrown['exception.stacktrace'].length <= STACK_LIMIT);

      const gone = byPath('/gone/7');
      assert.equal(gone.attributes['http.response.status_code'], 404);
      assert.equal(gone.status.code, 'UNSET');
      assert.equal(gone.attributes['error.type'], undefined);
      assert.match(exceptionOf(gone)?.['exception.message'] ?? '', /no such user 7/, 'the 404 keeps its reason as an event');

      // NestJS answers an unknown path by throwing NotFoundException through its exception filter; the others throw nothing.
      const nothing = byPath('/nothing/here');
      assert.equal(nothing.status.code, 'UNSET');
      assert.deepEqual(
        nothing.events.map((e) => e.attributes['exception.type']),
        name.startsWith('nestjs') ? ['NotFoundException'] : [],
      );

      if (fastify) {
        const invalid = spans.find((s) => s.attributes['http.request.method'] === 'POST');
        assert.equal(invalid.name, 'POST /users');
        assert.equal(invalid.attributes['http.route'], '/users');
        assert.equal(invalid.attributes['http.response.status_code'], 400);
        assert.equal(invalid.status.code, 'UNSET');
        assert.equal(exceptionOf(invalid)?.['exception.type'], 'FST_ERR_VALIDATION');
      }
      if (expressCjs) {
        const handled = byPath('/api/fail');
        assert.equal(handled.status.code, 'ERROR', 'an error handler that answers 503');
        assert.equal(handled.status.message, 'api down');
        assert.equal(exceptionOf(handled)?.['exception.type'], 'RangeError');
      }
    });
  }
}

test("the failing route's reason reaches tracehook view and the page: type and message on its line, status and exception event in its details", async (t) => {
  const dir = spansDir(t);
  const app = start('routes-app.cjs', { env: { TRACEHOOK_SPANS_DIR: dir, FRAMEWORK: 'express', NODE_ENV: 'test' } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  assert.equal((await get(port, '/boom/42')).status, 500);
  app.kill();
  await app.done;
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/tracehook.mjs', 'view', dir], { cwd: ROOT });
  const line = stdout.split('\n').find((l) => l.includes('GET /boom/:id'));
  assert.match(line, /ERROR/);
  assert.match(line, /TypeError/);
  assert.match(line, /boom: user 42 missing/);

  if (noBrowser) return t.skip(noBrowser);
  const html = join(dir, 'traces.html');
  await promisify(execFile)(process.execPath, ['bin/tracehook.mjs', 'view', dir, '--html', html], { cwd: ROOT });
  const { page } = await openBrowser(t);
  await page.goto(pathToFileURL(html).href);
  await page.locator('.trace-row', { hasText: '/boom/:id' }).click();
  await page.locator('.span-row', { hasText: 'GET /boom/:id' }).first().click();
  const details = await page.textContent('#details');
  assert.match(details, /ERROR: boom: user 42 missing/);
  assert.match(details, /exception\.type\s*TypeError/);
  assert.match(details, /exception\.message\s*boom: user 42 missing/);
});
