// The trace page in a real headless browser (Debian chromium driven by playwright-core): the
// self-contained file of `tracehook view --html` and the live page of `tracehook ui`, on the spans
// of a real traced run (test/fixtures/view/app.mjs: a worker thread, a forked child process of
// another service, a batch shared by three requests, a failing request).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildTraces } from '../dist/span-file/tree.js';
import { ROOT, readSpans, spansDir } from './helpers/fixture.mjs';
import { noBrowser, openBrowser } from './helpers/browser.mjs';
import { bigTrace, cli, line, span } from './helpers/synthetic-spans.mjs';
import { runViewFixture } from './helpers/view-fixture.mjs';

test('tracehook view --html: list, waterfall with nesting and services, filters, details, hand-offs, batch links both ways', { skip: noBrowser }, async (t) => {
  const dir = await runViewFixture(t);
  const traces = buildTraces(await readSpans(dir));
  assert.equal(traces.length, 4);
  const html = join(spansDir(t), 'traces.html');
  const made = await cli(['view', dir, '--html', html]);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^wrote .*traces\.html: 4 traces, \d+ spans/);
  const text = readFileSync(html, 'utf8');
  assert.doesNotMatch(text, /<script[^>]+src=|<link[^>]+href="(?!data:)|https?:\/\/(?!127\.0\.0\.1)[a-z]/i, 'no external resources');

  const { page } = await openBrowser(t);
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector('.trace-row');
  assert.equal(await page.locator('.trace-row').count(), 4);
  assert.equal(await page.textContent('#count'), '4 of 4 traces');

  // A trace served by the batch whose batch span is in another trace: open it from the list.
  const caller = traces.find((tr) => tr.spans.some((n) => n.span.name === 'price') && !tr.spans.some((n) => n.span.name === 'price batch'));
  const batchTrace = traces.find((tr) => tr.spans.some((n) => n.span.name === 'price batch'));
  assert.ok(caller && batchTrace);
  await page.click(`.trace-row[data-trace="${caller.traceId}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), caller.traceId);

  // One row per span, parent-first, with the tree's depth and each span's service.
  const rows = await page.$$eval('.span-row', (els) => els.map((r) => [r.querySelector('.label').textContent, Number(r.dataset.depth), r.dataset.service]));
  assert.deepEqual(
    rows,
    caller.spans.map((n) => [n.span.name, n.depth, n.span.resource['service.name']]),
  );
  assert.ok(rows.length >= 13, `${rows.length} rows`);
  assert.deepEqual([...new Set(rows.map((r) => r[2]))].sort(), ['shop', 'stock']);
  assert.ok(Math.max(...rows.map((r) => r[1])) >= 5, 'client → server → send → worker → send → child nesting');
  // The trace header names both services, each with its colour.
  const colours = await page.$$eval('#trace-header .services .dot', (dots) => dots.map((d) => d.style.background));
  assert.equal(new Set(colours).size, 2);

  // Hand-offs: each CONSUMER span that runs in another thread or process is marked as a crossing.
  const handoffs = await page.$$eval('.span-row.handoff-in', (els) =>
    els.map((r) => [r.querySelector('.label').textContent, r.querySelector('.badge.handoff').textContent.trim(), r.querySelector('.proc').textContent]),
  );
  assert.deepEqual(
    handoffs.map((h) => h.slice(0, 2)),
    [
      ['worker process', '⇢ worker_threads'],
      ['child_process process', '⇢ child_process'],
      ['child_process process', '⇢ child_process'],
      ['worker process', '⇢ worker_threads'],
    ],
  );
  assert.match(handoffs[0][2], /^shop\[\d+:t1\]$/);
  assert.match(handoffs[1][2], /^stock\[\d+\]$/);

  // The critical path of real spans crosses the worker thread and the forked child process of
  // `stock`, through every span between the request and the worker's last step.
  // (Whether `count stock` is on it depends on timing.)
  assert.match(await page.textContent('#cp-summary'), /^critical path: \d+ spans in 3 processes\/threads$/);
  const critical = await page.$$eval('.span-row.critical', (els) => els.map((r) => `${r.querySelector('.label').textContent} ${r.querySelector('.proc').textContent}`));
  for (const span of [/^worker process shop\[\d+:t1\]$/, /^child_process process stock\[\d+\]$/, /^child_process process shop\[\d+:t1\]$/, /^worker process shop\[\d+\]$/]) {
    assert.ok(
      critical.some((c) => span.test(c)),
      `${span} in ${critical.join(', ')}`,
    );
  }

  // Collapsing a subtree hides its descendants; expanding shows them again.
  const workerSend = page.locator('.span-row', { hasText: 'worker send' }).first();
  await workerSend.locator('.toggle').click();
  const collapsed = await page.locator('.span-row').count();
  assert.ok(collapsed < rows.length - 4, `${collapsed} rows once collapsed`);
  await page.locator('.span-row', { hasText: 'worker send' }).first().locator('.toggle').click();
  assert.equal(await page.locator('.span-row').count(), rows.length);

  // Clicking a span shows its attributes, resource and status.
  await page.locator('.span-row', { hasText: 'worker process' }).first().click();
  const details = await page.textContent('#details');
  assert.match(details, /messaging\.system\s*worker_threads/);
  assert.match(details, /messaging\.operation\.type\s*process/);
  assert.match(details, /Received from worker send \(shop\[\d+\]\): crossed into shop\[\d+:t1\] over worker_threads/);
  assert.match(details, /RESOURCE|Resource/);
  assert.match(details, /service\.name\s*shop/);

  // The caller span links to the batch span of another trace: follow it, then come back.
  await page
    .locator('.span-row')
    .filter({ has: page.locator('.label', { hasText: /^price$/ }) })
    .click();
  assert.match(await page.textContent('#details'), /tracehook\.batch\.wait_ms/);
  await page.click('#details .link-out a');
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), batchTrace.traceId);
  assert.equal(await page.textContent('#details h2'), 'price batch');
  assert.equal(await page.textContent('.span-row.selected .label'), 'price batch');
  const batchLinks = await page.$$eval('#details .link-out a', (as) => as.map((a) => a.dataset.gotoTrace));
  assert.equal(batchLinks.length, 3);
  assert.ok(batchLinks.includes(caller.traceId));
  await page.click(`#details .link-out a[data-goto-trace="${caller.traceId}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), caller.traceId);
  assert.equal(await page.textContent('#details h2'), 'price');
  assert.match(page.url(), new RegExp(`#trace=${caller.traceId}&span=[0-9a-f]{16}$`));

  // Filters narrow the list.
  await page.selectOption('#f-service', 'stock');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '3 of 4 traces');
  assert.equal(await page.locator('.trace-row').count(), 3);
  await page.selectOption('#f-service', '');
  await page.check('#f-errors');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '1 of 4 traces');
  const failing = traces.find((tr) => tr.spans.some((n) => n.span.status.code === 'ERROR'));
  assert.equal(await page.getAttribute('.trace-row', 'data-trace'), failing.traceId);
  await page.uncheck('#f-errors');
  await page.fill('#f-name', 'check *');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '4 of 4 traces');
  await page.fill('#f-name', 'count stock');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '3 of 4 traces');
  await page.fill('#f-name', '');
  await page.fill('#f-min', '1h');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '0 of 4 traces');

  // The failing trace: an exception event with its message in the details.
  await page.fill('#f-min', '');
  await page.click(`.trace-row[data-trace="${failing.traceId}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), failing.traceId);
  await page.locator('.span-row', { hasText: 'check item' }).click();
  const error = await page.textContent('#details');
  assert.match(error, /ERROR: no such item: broken/);
  assert.match(error, /exception\.message\s*no such item: broken/);
});

test('the page stays usable on a 10,000-span trace: only the rows in view are in the DOM, scrolling reaches the last span', { skip: noBrowser }, async (t) => {
  const dir = spansDir(t);
  const traceId = 'ab'.repeat(16);
  const spans = bigTrace(traceId);
  const lines = [];
  for (let i = 0; i < spans.length; i += 512) lines.push(line('big', spans.slice(i, i + 512)));
  writeFileSync(join(dir, '7.jsonl'), `${lines.join('\n')}\n`);
  const html = join(spansDir(t), 'big.html');
  assert.equal((await cli(['view', dir, '--html', html])).code, 0);

  const { page } = await openBrowser(t);
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector('.span-row');
  assert.match(await page.textContent('#trace-header'), /10000 spans/);
  const inDom = await page.locator('.span-row').count();
  assert.ok(inDom < 120, `${inDom} rows in the DOM for 10,000 spans`);
  await page.$eval('#waterfall', (el) => {
    el.scrollTop = el.scrollHeight;
  });
  await page.waitForFunction(() => [...document.querySelectorAll('.span-row .label')].some((l) => l.textContent === 'step 9999'));
  assert.ok((await page.locator('.span-row').count()) < 120);
  // Collapsing the root leaves one row.
  await page.$eval('#waterfall', (el) => {
    el.scrollTop = 0;
  });
  await page.locator('.span-row', { hasText: 'step 0' }).first().locator('.toggle').click();
  assert.equal(await page.locator('.span-row').count(), 1);
});

test('the page draws a parent chain 20,000 deep and a parent cycle (corrupt files) without recursion', { skip: noBrowser }, async (t) => {
  const dir = spansDir(t);
  const chainId = 'cd'.repeat(16);
  const chain = [];
  for (let i = 0; i < 20_000; i++) chain.push(span(chainId, i, i === 0 ? undefined : i - 1, i, 1));
  // Two spans each the parent of the other: a corrupt file, shown cut at the earlier one.
  const cycleId = 'ef'.repeat(16);
  const cycle = [span(cycleId, 0, 1, 0, 10), span(cycleId, 1, 0, 5, 2)];
  writeFileSync(join(dir, '7.jsonl'), `${line('deep', chain)}\n${line('loop', cycle)}\n`);
  const html = join(spansDir(t), 'deep.html');
  const made = await cli(['view', dir, '--html', html]);
  assert.equal(made.code, 0, made.stderr);

  const { page } = await openBrowser(t);
  await page.goto(`${pathToFileURL(html).href}#trace=${chainId}`);
  await page.waitForSelector('.span-row');
  assert.match(await page.textContent('#trace-header'), /20000 spans/);
  await page.$eval('#waterfall', (el) => {
    el.scrollTop = el.scrollHeight;
  });
  await page.waitForFunction(() => [...document.querySelectorAll('.span-row .label')].some((l) => l.textContent === 'step 19999'));
  const last = page.locator('.span-row', { hasText: 'step 19999' });
  assert.equal(await last.getAttribute('data-depth'), '19999');
  // Indented at most 64 levels: the row's name stays on screen.
  assert.equal(await last.locator('.name').evaluate((el) => el.style.paddingLeft), `${4 + 64 * 14}px`);

  await page.click(`.trace-row[data-trace="${cycleId}"]`);
  await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), cycleId);
  const rows = await page.$$eval('.span-row', (els) => els.map((r) => [r.querySelector('.label').textContent, r.dataset.depth]));
  assert.deepEqual(rows, [
    ['step 0', '0'],
    ['step 1', '1'],
  ]);
});

test('tracehook ui serves the page on 127.0.0.1 only, loads spans on demand, and picks up traces written later', { skip: noBrowser }, async (t) => {
  const dir = spansDir(t);
  // 100,000 spans in 10,000 traces of 10 spans.
  const lines = [];
  let batch = [];
  for (let tr = 0; tr < 10_000; tr++) {
    const traceId = (tr + 1).toString(16).padStart(32, '0');
    for (let i = 0; i < 10; i++) batch.push(span(traceId, i, i === 0 ? undefined : 0, tr * 1000 + i, 500));
    if (batch.length >= 500) {
      lines.push(line(lines.length % 2 ? 'odd' : 'even', batch));
      batch = [];
    }
  }
  writeFileSync(join(dir, '1.jsonl'), `${lines.join('\n')}\n`);

  const server = spawn(process.execPath, ['bin/tracehook.mjs', 'ui', dir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => server.kill('SIGKILL'));
  let out = '';
  server.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  const url = await new Promise((resolve, reject) => {
    server.stdout.on('data', () => {
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/) /.exec(out);
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`ui exited ${code}: ${out}`)));
  });

  // The API: summaries only in the list; one trace's spans on request; other Host headers refused.
  const list = await (await fetch(`${url}api/traces`)).json();
  assert.equal(list.traces.length, 10_000);
  assert.equal(list.spanCount, 100_000);
  assert.equal(list.mode, 'live');
  assert.equal('spans' in list.traces[0], false);
  const one = await (await fetch(`${url}api/trace/${'0'.repeat(31)}5`)).json();
  assert.equal(one.spans.length, 10);
  assert.equal((await fetch(`${url}api/trace/${'f'.repeat(32)}`)).status, 404);
  const { port } = new URL(url);
  const rebinding = await new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', headers: { host: `evil.example:${port}` } }, (res) => resolve(res.statusCode));
    req.end();
  });
  assert.equal(rebinding, 403);

  const { page } = await openBrowser(t);
  await page.goto(url);
  await page.waitForSelector('.span-row');
  assert.equal(await page.textContent('#count'), '10000 of 10000 traces');
  assert.ok((await page.locator('.trace-row').count()) < 80, 'the list is virtualised');
  await page.selectOption('#f-service', 'odd');
  await page.waitForFunction(() => document.querySelector('#count').textContent === '5000 of 10000 traces');
  await page.selectOption('#f-service', '');

  // A new span file appears: the page shows its trace without a reload.
  writeFileSync(join(dir, '2.jsonl'), `${line('late', [span('cd'.repeat(16), 0, undefined, 20_000_000, 100)])}\n`);
  await page.waitForFunction(() => document.querySelector('#count').textContent === '10001 of 10001 traces');
  await page.fill('#f-trace', 'cdcd');
  await page.waitForFunction(() => document.querySelectorAll('.trace-row').length === 1);
  await page.click('.trace-row');
  await page.waitForFunction(() => document.querySelector('#trace-header').textContent.includes('cdcdcdcd'));
  assert.equal(await page.locator('.span-row').count(), 1);

  // The page polls the server: close it first, or its refused requests count as page errors.
  await page.close();
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
  server.kill('SIGINT');
  assert.deepEqual(await exited, { code: 0, signal: null });
});

test('tracehook ui: loopback only, and one clear line for a bad port, a port in use or a missing directory', async (t) => {
  const dir = spansDir(t);
  const busy = http.createServer();
  await new Promise((r) => busy.listen(0, '127.0.0.1', r));
  t.after(() => busy.close());
  const inUse = busy.address().port;
  for (const [args, message] of [
    [['ui', dir, '--port', 'abc'], /^tracehook ui: --port: expected a port number 0\.\.65535, got "abc"\n$/],
    [['ui', dir, '--port', String(inUse)], new RegExp(`^tracehook ui: port ${inUse} on 127\\.0\\.0\\.1 is in use \\(choose another with --port\\)\\n$`)],
    [['ui', join(dir, 'nope')], /^tracehook ui: .*nope: no such file or directory\n$/],
    [['ui', '--host', '0.0.0.0'], /^tracehook ui: Unknown option '--host' \(see tracehook ui --help\)\n$/],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, message);
  }

  const server = spawn(process.execPath, ['bin/tracehook.mjs', 'ui', dir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => server.kill('SIGKILL'));
  let out = '';
  const url = await new Promise((resolve) =>
    server.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/) /.exec(out);
      if (m) resolve(new URL(m[1]));
    }),
  );
  assert.equal((await fetch(`${url}api/traces`)).status, 200);
  // Not on the IPv6 loopback either: only 127.0.0.1 is bound.
  await assert.rejects(fetch(`http://[::1]:${url.port}${url.pathname}api/traces`));
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
  server.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null });
});
