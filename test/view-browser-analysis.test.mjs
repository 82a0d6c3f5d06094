// The trace page's ways of finding and explaining a slow or failing request (issue 33), in headless
// chromium on made-up span files: the duration scatter plot, the list following the filters, the
// route in each list entry, and the small print (plurals, key wrapping, no failed request).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spansDir } from './helpers/fixture.mjs';
import { noBrowser, openBrowser } from './helpers/browser.mjs';
import { attrs, cli, line, span, startUi } from './helpers/synthetic-spans.mjs';

const FORK = '0a'.repeat(16);
const HEALTH = '0b'.repeat(16);
const POOL = '0c'.repeat(16);

/** Three plain node:http requests: GET /fork (one span), GET /health, GET /pool (fails, in a worker thread too). */
function writeRoutes(dir) {
  const server = (traceId, startUs, durUs, path, extra = {}) =>
    span(traceId, 0, undefined, startUs, durUs, {
      name: 'GET',
      kind: 2,
      attributes: attrs({ 'http.request.method': 'GET', 'url.path': path, 'http.response.status_code': 200, ...extra }),
    });
  const pool = [server(POOL, 300_000, 90_000, '/pool?token=secret', { 'http.route': '/pool' }), span(POOL, 1, 0, 310_000, 60_000, { name: 'pool task', status: { code: 2, message: 'task failed' } })];
  writeFileSync(
    join(dir, '7.jsonl'),
    [
      line('cpu-svc', [server(FORK, 0, 40_000, '/fork')]),
      line('cpu-svc', [server(HEALTH, 100_000, 2_000, '/health?probe=1')]),
      line('cpu-svc', [pool[0]]),
      line('cpu-svc', [pool[1]], { 'thread.id': 1 }),
    ].join('\n') + '\n',
  );
}

/** The `--html` page of the spans `write(dir)` makes, open in chromium. */
async function htmlPage(t, write, viewport) {
  const dir = spansDir(t);
  write(dir);
  const html = join(dir, 'traces.html');
  const made = await cli(['view', dir, '--html', html]);
  assert.equal(made.code, 0, made.stderr);
  const { page } = await openBrowser(t, viewport);
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector('.trace-row');
  return page;
}
const staticPage = (t, viewport) => htmlPage(t, writeRoutes, viewport);

const openTraceId = (page) => page.evaluate(() => /[0-9a-f]{32}/.exec(document.querySelector('#trace-header').textContent)?.[0] ?? null);

test('page: list entries name the route or URL path (no query), singular counts read "1 span", "1 process/thread"', { skip: noBrowser }, async (t) => {
  const page = await staticPage(t);
  const roots = await page.$$eval('.trace-row .root', (els) => els.map((e) => e.textContent.trim()));
  assert.deepEqual(roots, ['GET /fork cpu-svc', 'GET /health cpu-svc', 'GET /pool cpu-svc']);
  assert.equal(await page.textContent(`.trace-row[data-trace="${FORK}"] .l2 > span:nth-child(2)`), '1 span');
  assert.equal(await page.textContent(`.trace-row[data-trace="${POOL}"] .l2 > span:nth-child(2)`), '2 spans');
  await page.click(`.trace-row[data-trace="${FORK}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), FORK);
  const header = await page.textContent('#trace-header');
  assert.match(header, /GET \/fork/);
  assert.match(header, / 1 span · 1 process\/thread · no errors/);
  await page.click(`.trace-row[data-trace="${POOL}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), POOL);
  assert.match(await page.textContent('#trace-header'), / 2 spans · 2 processes\/threads · 1 error\b/);
});

test('page: attribute keys wrap only at dots, never mid-word', { skip: noBrowser }, async (t) => {
  const page = await staticPage(t, { width: 1000, height: 700 });
  await page.click(`.trace-row[data-trace="${FORK}"]`);
  await page.waitForSelector('#details td.k');
  // Each run of a key between dots is on one line: one client rect per text node.
  const split = await page.$$eval('#details td.k', (cells) =>
    cells.flatMap((cell) =>
      [...cell.childNodes]
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .filter((n) => {
          const r = document.createRange();
          r.selectNodeContents(n);
          return r.getClientRects().length > 1;
        })
        .map((n) => `${cell.textContent}: "${n.textContent}" wraps`),
    ),
  );
  assert.deepEqual(split, []);
  const keys = await page.$$eval('#details td.k', (cells) => cells.map((c) => c.textContent));
  assert.ok(keys.includes('http.request.method'), keys.join());
});

test('page: the open trace follows the filters (a trace they exclude gives way to the first that matches)', { skip: noBrowser }, async (t) => {
  const page = await staticPage(t);
  await page.click(`.trace-row[data-trace="${HEALTH}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), HEALTH);
  await page.check('#f-errors');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '1 of 3 traces');
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), POOL);
  assert.equal(await page.locator('.span-row').count(), 2);
  assert.equal(await page.getAttribute('.trace-row.selected', 'data-trace'), POOL);
  // Nothing matches: the waterfall is emptied, not left on a trace the list no longer shows.
  await page.fill('#f-name', 'nothing*');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '0 of 3 traces');
  await page.waitForFunction(() => document.querySelector('#trace-header').textContent === 'No trace matches the filters.');
  assert.equal(await page.locator('.span-row').count(), 0);
  assert.equal(await openTraceId(page), null);
});

test('page: the scatter plot has a point per trace shown, errors as red diamonds; a click or Enter opens the trace', { skip: noBrowser }, async (t) => {
  const page = await staticPage(t);
  assert.equal(await page.getAttribute('#scatter', 'data-points'), '3');
  assert.equal(await page.locator('#scatter .pt').count(), 3);
  assert.deepEqual(await page.$$eval('#scatter path.pt.error', (els) => els.map((e) => e.dataset.trace)), [POOL]);
  assert.equal(await page.locator('#scatter circle.pt:not(.error)').count(), 2);
  // Longer traces sit higher (smaller y): /pool 90 ms, /fork 40 ms, /health 2 ms.
  const y = await page.$$eval('#scatter .pt', (els) => Object.fromEntries(els.map((e) => [e.dataset.trace, e.getBoundingClientRect().top])));
  assert.ok(y[POOL] < y[FORK] && y[FORK] < y[HEALTH], JSON.stringify(y));

  await page.click(`#scatter .pt[data-trace="${HEALTH}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), HEALTH);
  assert.equal(await page.getAttribute('#scatter .pt.sel', 'data-trace'), HEALTH);

  // Keyboard: Home is the earliest trace, → the next one, Enter opens it.
  await page.focus('#scatter');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#scatter-tip'), /^GET \/health · 2\.0 ms/);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), POOL);

  // Filters thin the plot out.
  await page.check('#f-errors');
  await page.waitForFunction(() => document.querySelector('#scatter').dataset.points === '1');
  assert.equal(await page.locator('#scatter .pt').count(), 1);
});

test('page: tracehook ui makes no request that fails (no favicon 404) and shows the routes', { skip: noBrowser }, async (t) => {
  const dir = spansDir(t);
  writeRoutes(dir);
  const { server, url } = await startUi(t, dir);
  const { page } = await openBrowser(t);
  await page.goto(url);
  await page.waitForSelector('.span-row');
  assert.equal(await page.textContent('#count'), '3 of 3 traces');
  assert.equal(await page.textContent(`.trace-row[data-trace="${HEALTH}"] .root`), 'GET /health cpu-svc');
  // A browser with a window asks for /favicon.ico (a 404 in its console) unless the page names an
  // icon; headless chromium never asks, so the declaration is what is checked. openBrowser fails
  // the test on any response >= 400 the page does get.
  assert.equal(await page.$eval('link[rel=icon]', (l) => l.getAttribute('href')), 'data:,');
  // Stop the page polling before the server goes.
  await page.close();
  server.kill('SIGTERM');
});

const CHECKOUT = '0d'.repeat(16);
const FAST = '0e'.repeat(16);
const SLOW = '0f'.repeat(16);
const ms = 1000; // span() takes µs

/**
 * GET /checkout, whose time goes into a worker thread: the critical path is checkout → pool send →
 * pool task (thread 1) → pg SELECT; validate and audit run alongside and are off it. Two runs of
 * GET /report: in the slow one the SELECT grew from 10 ms to 80 ms and a redis GET appeared.
 */
function writeAnalysis(dir) {
  const http = (traceId, durUs, route) => span(traceId, 0, undefined, 0, durUs, { name: `GET ${route}`, kind: 2, attributes: attrs({ 'http.request.method': 'GET', 'http.route': route }) });
  const db = (traceId, i, parent, startUs, durUs) =>
    span(traceId, i, parent, startUs, durUs, { name: 'pg.query:SELECT shop', kind: 3, attributes: attrs({ 'db.system': 'postgresql', 'db.statement': 'SELECT * FROM orders WHERE id = $1' }) });
  const checkout = [
    http(CHECKOUT, 100 * ms, '/checkout'),
    span(CHECKOUT, 1, 0, 5 * ms, 25 * ms, { name: 'validate' }),
    span(CHECKOUT, 2, 0, 10 * ms, 40 * ms, { name: 'audit' }),
    // A PRODUCER ends once its task is posted; the path still leads into the worker.
    span(CHECKOUT, 3, 0, 20 * ms, 2 * ms, { name: 'piscina send', kind: 4, attributes: attrs({ 'messaging.system': 'piscina' }) }),
  ];
  const inWorker = [span(CHECKOUT, 4, 3, 25 * ms, 65 * ms, { name: 'piscina process', kind: 5, attributes: attrs({ 'messaging.system': 'piscina' }) }), db(CHECKOUT, 5, 4, 30 * ms, 50 * ms)];
  const fast = [http(FAST, 50 * ms, '/report'), db(FAST, 1, 0, 5 * ms, 10 * ms), span(FAST, 2, 0, 20 * ms, 20 * ms, { name: 'render' })];
  const slow = [
    http(SLOW, 130 * ms, '/report'),
    db(SLOW, 1, 0, 5 * ms, 80 * ms),
    span(SLOW, 3, 0, 85 * ms, 4 * ms, { name: 'redis GET', kind: 3, attributes: attrs({ 'db.system': 'redis' }) }),
    span(SLOW, 2, 0, 90 * ms, 20 * ms, { name: 'render' }),
  ];
  // The runs start 0.4 s apart: distinct points in the scatter plot.
  const later = (spans, us) =>
    spans.map((sp) => ({ ...sp, startTimeUnixNano: String(BigInt(sp.startTimeUnixNano) + BigInt(us) * 1000n), endTimeUnixNano: String(BigInt(sp.endTimeUnixNano) + BigInt(us) * 1000n) }));
  writeFileSync(join(dir, '7.jsonl'), [line('shop', checkout), line('shop', inWorker, { 'thread.id': 1 }), line('shop', later(fast, 400_000)), line('shop', later(slow, 800_000))].join('\n') + '\n');
}

const analysisPage = (t, viewport) => htmlPage(t, writeAnalysis, viewport);

const openTrace = async (page, traceId) => {
  await page.click(`.trace-row[data-trace="${traceId}"] .root`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), traceId);
};

/** Saves a screenshot into $TRACEHOOK_SCREENSHOTS (a directory) when set: how docs/img's are made. */
async function screenshot(page, name) {
  if (process.env.TRACEHOOK_SCREENSHOTS) await page.screenshot({ path: join(process.env.TRACEHOOK_SCREENSHOTS, name) });
}

test('page: search by attribute narrows the list (key=value, key=prefix*, text); the terms carry into the trace', { skip: noBrowser }, async (t) => {
  const page = await analysisPage(t);
  const count = (text) => page.waitForFunction((c) => document.querySelector('#count').textContent === c, text);
  const listed = () => page.$$eval('.trace-row', (rows) => rows.map((r) => r.dataset.trace).sort());
  await page.fill('#f-where', 'db.system=postgresql');
  await count('3 of 3 traces');
  await page.fill('#f-where', 'db.system=redis');
  await count('1 of 3 traces');
  assert.deepEqual(await listed(), [SLOW]);
  await page.fill('#f-where', 'http.route=/rep*');
  await count('2 of 3 traces');
  assert.deepEqual(await listed(), [FAST, SLOW]);
  // Two terms: each matched by some span of the trace.
  await page.fill('#f-where', 'http.route=/rep* render');
  await count('2 of 3 traces');
  await page.fill('#f-where', 'piscina');
  await count('1 of 3 traces');
  assert.deepEqual(await listed(), [CHECKOUT]);
  assert.equal(await page.getAttribute('#scatter', 'data-points'), '1');
  await page.fill('#f-where', '=oops');
  await page.waitForFunction(() => document.querySelector('#count').textContent.includes('not understood: search "=oops"'));

  // The list search carries into the trace opened: its span is marked and selected.
  await page.fill('#f-where', 'db.system=redis');
  await count('1 of 3 traces');
  await openTrace(page, SLOW);
  assert.equal(await page.inputValue('#span-search'), 'db.system=redis');
  assert.deepEqual(await page.$$eval('.span-row.hit .label', (els) => els.map((e) => e.textContent)), ['redis GET']);
  assert.equal(await page.textContent('#details h2'), 'redis GET');
  assert.equal(await page.textContent('#span-hits'), '1 of 1 match');
});

test('page: search within a trace marks the matching spans; next and previous step through them, opening collapsed rows', { skip: noBrowser }, async (t) => {
  const page = await analysisPage(t);
  await openTrace(page, SLOW);
  // Collapse the root: a match below it is still found and shown.
  await page.locator('.span-row', { hasText: 'GET /report' }).first().locator('.toggle').click();
  assert.equal(await page.locator('.span-row').count(), 1);
  await page.fill('#span-search', 'db.system');
  await page.waitForFunction(() => document.querySelector('#span-hits').textContent === '1 of 2 matches');
  assert.equal(await page.textContent('#details h2'), 'pg.query:SELECT shop');
  assert.deepEqual(await page.$$eval('.span-row.hit .label', (els) => els.map((e) => e.textContent)), ['pg.query:SELECT shop', 'redis GET']);
  await page.click('#span-next');
  assert.equal(await page.textContent('#span-hits'), '2 of 2 matches');
  assert.equal(await page.textContent('#details h2'), 'redis GET');
  await page.click('#span-next');
  assert.equal(await page.textContent('#details h2'), 'pg.query:SELECT shop');
  await page.click('#span-prev');
  assert.equal(await page.textContent('#details h2'), 'redis GET');
  // Enter / Shift+Enter in the box do the same.
  await page.press('#span-search', 'Shift+Enter');
  assert.equal(await page.textContent('#details h2'), 'pg.query:SELECT shop');
  await page.fill('#span-search', 'db.statement=SELECT*');
  await page.waitForFunction(() => document.querySelector('#span-hits').textContent === '1 of 1 match');
  // A value with spaces is quoted, and then matched whole.
  await page.fill('#span-search', 'db.statement="SELECT * FROM orders WHERE id = $1"');
  await page.waitForFunction(() => document.querySelector('#span-hits').textContent === '1 of 1 match');
  await page.fill('#span-search', 'nothing here');
  await page.waitForFunction(() => document.querySelector('#span-hits').textContent === 'no match');
  assert.equal(await page.locator('.span-row.hit').count(), 0);
});

test("page: the critical path is marked across a worker thread, with each span's self time", { skip: noBrowser }, async (t) => {
  const page = await analysisPage(t, { width: 1280, height: 560 });
  await openTrace(page, CHECKOUT);
  const critical = await page.$$eval('.span-row.critical', (rows) => rows.map((r) => [r.querySelector('.label').textContent, r.querySelector('.proc').textContent]));
  assert.deepEqual(
    critical.map((c) => c[0]),
    ['GET /checkout', 'piscina send', 'piscina process', 'pg.query:SELECT shop'],
  );
  assert.equal(critical[2][1], 'shop[7:t1]');
  assert.equal(await page.locator('.span-row.critical', { hasText: 'validate' }).count(), 0);
  assert.equal(await page.locator('.span-row.critical', { hasText: 'audit' }).count(), 0);
  assert.equal(await page.textContent('#cp-summary'), 'critical path: 4 spans in 2 processes/threads');
  // Root: 100 ms, its children cover 5–50 ms: 55 ms self. On the path 0–20 ms and, once the
  // worker's task ended, 90–100 ms.
  assert.match(await page.textContent('#details .self-time'), /^55\.0 ms/);
  assert.match(await page.textContent('#details .on-path'), /^30\.0 ms/);
  // The dark band on the root's bar: two stretches.
  assert.equal(await page.locator('.span-row', { hasText: 'GET /checkout' }).locator('.cp-seg').count(), 2);
  await page.locator('.span-row', { hasText: 'piscina process' }).click();
  assert.match(await page.textContent('#details .self-time'), /^15\.0 ms/);
  await page.locator('.span-row', { hasText: 'audit' }).click();
  assert.equal(await page.textContent('#details .on-path'), 'no');
  assert.match(await page.textContent('#details .self-time'), /^40\.0 ms/);
  await page.locator('.span-row', { hasText: 'pg.query' }).click();
  await screenshot(page, 'critical-path.png');
  // The marks can be turned off.
  await page.uncheck('#show-cp');
  assert.equal(await page.locator('.span-row.critical').count(), 0);
});

test('page: comparing two runs of a route shows which spans grew and by how much', { skip: noBrowser }, async (t) => {
  const page = await analysisPage(t, { width: 1280, height: 560 });
  assert.equal(await page.isDisabled('#compare-go'), true);
  // Picked slow first: the page still makes the faster one A.
  await page.check(`.trace-row[data-trace="${SLOW}"] .pick`);
  await page.check(`.trace-row[data-trace="${FAST}"] .pick`);
  assert.match(await page.textContent('#picked'), /GET \/report \(130\.0 ms\).*GET \/report \(50\.0 ms\)/);
  await page.click('#compare-go');
  await page.waitForSelector('#compare .cmp-row');
  assert.equal(await page.isVisible('#waterfall'), false);
  const rows = await page.$$eval('#compare tbody tr', (trs) => trs.map((tr) => [...tr.cells].slice(0, 4).map((c) => c.textContent.trim())));
  assert.deepEqual(rows, [
    ['GET /report', '50.0 ms', '130.0 ms', '+80.0 ms ×2.60'],
    ['pg.query:SELECT shop', '10.0 ms', '80.0 ms', '+70.0 ms ×8.00'],
    ['render', '20.0 ms', '20.0 ms', '±0.00 ms'],
    ['redis GET', '—', '4.0 ms', 'only in B'],
  ]);
  assert.equal(await page.getAttribute('#compare tbody tr:nth-child(2)', 'class'), 'cmp-row grew');
  assert.match(await page.textContent('#trace-header'), /A: GET \/report · 50\.0 ms .* B: GET \/report · 130\.0 ms .*Δ \+80\.0 ms/s);
  await screenshot(page, 'compare.png');
  // Back to a trace: the waterfall returns.
  await page.click('#compare-close');
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), SLOW);
  assert.equal(await page.isVisible('#waterfall'), true);
  // From a trace, one click compares it with the fastest run of its route; none for a route run once.
  assert.equal(await page.textContent('#compare-fastest'), 'compare with the fastest GET /report (50.0 ms)');
  await page.click('#compare-fastest');
  await page.waitForSelector('#compare .cmp-row');
  assert.equal(await page.textContent('#compare tbody tr:nth-child(2) .delta'), '+70.0 ms ×8.00');
  await openTrace(page, CHECKOUT);
  assert.equal(await page.isVisible('#compare-fastest'), false);
});

test('page: tracehook ui searches on the server (api/search)', { skip: noBrowser }, async (t) => {
  const dir = spansDir(t);
  writeAnalysis(dir);
  const { server, url } = await startUi(t, dir);
  assert.deepEqual(await (await fetch(`${url}api/search?q=db.system%3Dredis`)).json(), { traceIds: [SLOW] });
  assert.equal((await fetch(`${url}api/search?q=%3Dx`)).status, 400);
  const { page } = await openBrowser(t);
  await page.goto(url);
  await page.waitForSelector('.span-row');
  await page.fill('#f-where', 'http.route=/report');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '2 of 3 traces');
  await page.fill('#f-where', 'db.system=redis');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '1 of 3 traces');
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), SLOW);
  await page.close();
  server.kill('SIGTERM');
});
