// `tracehook view --critical-path`, `--compare`, `--where`, the recursive directory reader and the
// list's request names, on span files of a real traced system (test/fixtures/view/app.mjs: three
// GET /order requests that cross a worker thread and a forked child process, one that fails),
// read by the tracehook bin as a user runs it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startUiServer } from '../dist/cli/ui-server.js';
import { ROOT, spansDir, start } from './helpers/fixture.mjs';
import { runViewFixture } from './helpers/view-fixture.mjs';

let dir;
after(() => rmSync(dir, { recursive: true, force: true }));
let traces; // [{ id, item }] of the four requests, oldest first; item from the list's client URL
before(async () => {
  dir = await runViewFixture({}); // removed below, after every test
  const list = (await view(['--list', '--where', 'url.full'])).stdout.trim().split('\n');
  assert.equal(list.length, 4, list.join('\n'));
  traces = list.map((line) => ({ id: line.split(/\s+/)[2], line }));
});

async function view(args, where = dir) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['bin/tracehook.mjs', 'view', where, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (typeof err.code !== 'number') throw err;
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

test('view --list names plain node:http requests by their URL path, not only the method', () => {
  for (const { line } of traces) assert.match(line, / {2}GET \/order \(shop\) {2}/, line);
});

test('view --critical-path: self time on every span, ● on the path through the worker thread and the child process, its spans under the tree', async () => {
  const { code, stdout: out } = await view(['--critical-path', '--where', 'http.response.status_code=200', '--limit', '1']);
  assert.equal(code, 0);
  const lines = out.split('\n');
  const spanLines = lines.filter((l) => / (INTERNAL|SERVER|CLIENT|PRODUCER|CONSUMER) /.test(l) && / self /.test(l));
  assert.ok(spanLines.length >= 8, out);
  for (const l of spanLines) assert.match(l, / {2}[● ] self [\d.]+ ms {2}/, l);
  const marked = (name, process) => spanLines.some((l) => l.includes(name) && l.includes('● self') && l.includes(process));
  assert.ok(marked(' ', 'stock['), `the path crosses into the child process (service stock)\n${out}`);
  assert.ok(marked('worker process', ':t1]'), `the path crosses into the worker thread\n${out}`);
  // The path covers its root, the first line (µs apart at most: the path adds whole µs).
  const rootMs = Number(/ ([\d.]+) ms {2}● self/.exec(spanLines[0])[1]);
  const pathMs = Number(/critical path: ([\d.]+) ms through \d+ spans/.exec(out)[1]);
  assert.ok(Math.abs(pathMs - rootMs) <= 0.1, `the path covers the root span\n${out}`);
  assert.match(out, /^ {4}\s*[\d.]+ ms\s+[\d.]+%\s+child_process send\s+PRODUCER\s+shop\[\d+:t1\]/m, 'the hand-off into the child is listed with its time on the path');
});

test('view --compare: two traces of one route, span by span, largest change first; errors name the argument', async () => {
  const [a, b] = traces;
  const { code, stdout } = await view(['--compare', a.id.slice(0, 12), b.id]);
  assert.equal(code, 0);
  const [first, second] = stdout.split('\n');
  assert.match(first, new RegExp(`^compare A ${a.id} GET /order \\(shop\\) [\\d.]+ ms$`));
  assert.match(second, new RegExp(`^ {3}with B ${b.id} GET /order \\(shop\\) [\\d.]+ ms: [+-][\\d.]+ ms \\(×[\\d.]+\\)$`));
  assert.match(stdout, /\d+ spans in both \(\d+ unchanged\), \d+ only in A, \d+ only in B/);
  const table = stdout.split('\n').filter((l) => / ms\s+[\d.]+ ms\s+[+-][\d.]+ ms/.test(l));
  assert.ok(table.length >= 5, stdout);
  const deltas = table.map((l) => Math.abs(Number(/([+-][\d.]+) ms/.exec(l)[1])));
  assert.deepEqual(
    deltas,
    [...deltas].sort((x, y) => y - x),
    'largest change first',
  );
  assert.match(stdout, /shop: GET > shop: GET$/m, 'the SERVER span under the client span, by its path');

  const one = await view(['--compare', a.id]);
  assert.equal(one.code, 1);
  assert.match(one.stderr, /^tracehook view: --compare: expected two trace ids \(--compare TRACE_A TRACE_B\), got 1\n$/);
  const missing = await view(['--compare', a.id, 'ffff']);
  assert.match(missing.stderr, /--compare: trace B: no trace id starts with ffff \(4 traces read\)/);
  const mixed = await view(['--compare', a.id, b.id, '--errors']);
  assert.match(mixed.stderr, /--compare shows two traces named by id: it cannot be combined with --errors/);
});

test('view --where: key=value on numbers, key=prefix*, free text; several terms must all match', async () => {
  const ids = async (...args) => {
    const r = await view(['--list', ...args]);
    return r.code === 0
      ? r.stdout
          .trim()
          .split('\n')
          .map((l) => l.split(/\s+/)[2])
      : r;
  };
  const failed = traces.find((t) => /ERROR/.test(t.line)).id;
  assert.deepEqual(await ids('--where', 'http.response.status_code=500'), [failed]);
  assert.equal((await ids('--where', 'url.full=http://127.0.0.1:*')).length, 4);
  assert.equal((await ids('--where', 'LAMP')).length, 1, 'free text in a value, any case');
  assert.equal((await ids('--where', 'lamp', '--where', 'service.name=stock')).length, 1, 'each term by some span');
  const none = await ids('--where', 'lamp', '--where', 'http.response.status_code=500');
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no trace matches --where lamp --where http\.response\.status_code=500 in .* \(4 traces read\)/);
  const bad = await view(['--where', '=x']);
  assert.match(bad.stderr, /^tracehook view: --where: expected key=value, key=prefix\*, a key or some text, got "=x"\n$/);
});

test('view and ui read span files in directories below the one given (symlinks not followed), and view says how deep it looked', async (t) => {
  const parent = spansDir(t);
  mkdirSync(join(parent, 'app', 'run-1'), { recursive: true });
  cpSync(dir, join(parent, 'app', 'run-1'), { recursive: true });
  mkdirSync(join(parent, 'a', 'b', 'c', 'd', 'e'), { recursive: true });
  cpSync(dir, join(parent, 'a', 'b', 'c', 'd', 'e'), { recursive: true });
  symlinkSync(join(parent, 'app'), join(parent, 'link'));
  const { code, stdout } = await view(['--list'], parent);
  assert.equal(code, 0);
  assert.equal(stdout.trim().split('\n').length, 4, 'each trace once: the symlink and the directory 5 levels down are not read');
  const empty = spansDir(t);
  mkdirSync(join(empty, 'x'));
  const none = await view([], empty);
  assert.match(none.stderr, /no span files \(\*\.jsonl\) in .* \(nor in directories up to 4 levels below\)/);

  const ui = start(null, { command: ['bin/tracehook.mjs', 'ui', empty, '--port', '0'], timeoutMs: 20_000 });
  await ui.ready(/on http:\/\/127\.0\.0\.1:\d+\//);
  while (!ui.stderr.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 50));
  ui.kill('SIGINT');
  assert.equal((await ui.done).code, 0);
  assert.match(
    ui.stderr,
    /^tracehook ui: no span files \(\*\.jsonl\) yet in .* \(nor in directories up to 4 levels below\): the page lists traces as they are written\n$/,
    'ui says so, not only "0 of 0 traces"',
  );

  const server = await startUiServer([parent], 0);
  t.after(() => server.close());
  const data = await (await fetch(`${server.url}api/traces`)).json();
  assert.equal(data.traces.length, 4, 'tracehook ui on a parent of span directories lists their traces');
  assert.equal(data.traces[0].root.target, '/order', 'the page gets the request path too');
  assert.ok(readdirSync(join(parent, 'app', 'run-1')).length > 0);
});

test('view --html says 1 trace, not 1 traces', async (t) => {
  const out = join(spansDir(t), 'page.html');
  const { stdout } = await view(['--html', out, '--where', 'http.response.status_code=500']);
  assert.match(stdout, /^wrote .*page\.html: 1 trace, 3 spans \(\d+ KiB\)\n$/);
});
