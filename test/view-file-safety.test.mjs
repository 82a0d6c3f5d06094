// `tracehook view`, `ui` and `export` read span files with the safety rules the preload writes them
// by: the same fallback directory when /tmp/spans is another user's, only regular files of ours or
// root's, never a FIFO or a symlink (to /dev/zero), one bad file never hides the good ones, lines
// above 64 MiB skipped, and the ui page only for whoever holds the token it printed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, spansDir } from './helpers/fixture.mjs';
import { runInPrivateTmp } from './helpers/private-tmp.mjs';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const canUnshare = isRoot && spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']).status === 0;
const NOT_ROOT = 'needs root: a second uid (nobody) owns files';
const MINE = 'a'.repeat(32);
const FORGED = 'f'.repeat(32);

/** One span-file line holding one root span of `traceId`, service `service`. */
function spanLine(traceId, service) {
  const start = 1_700_000_000_000_000_000n;
  const span = { traceId, spanId: '1'.repeat(16), name: `${service} work`, kind: 2, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1_000_000n) };
  return `${JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ scope: { name: 't' }, spans: [span] }] }] })}\n`;
}

/**
 * Runs the tracehook CLI to its end, as `user` (root or nobody). Killed after `killMs` (a bound on a
 * hang, not a timing assertion): `killed` says so.
 */
function cli(args, { user = 'root', env = {}, killMs = 30_000 } = {}) {
  const node = [process.execPath, join(ROOT, 'bin/tracehook.mjs'), ...args];
  const [cmd, ...argv] = user === 'root' ? node : ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...node];
  const childEnv = { ...process.env, NO_COLOR: '1', ...env };
  for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd: ROOT, env: childEnv });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, killed });
    });
  });
}

/** A directory with mine.jsonl (one trace of ours) in it. */
function dirWithMine(t) {
  const dir = spansDir(t);
  writeFileSync(join(dir, 'mine.jsonl'), spanLine(MINE, 'mine'));
  return dir;
}

test('view: a FIFO named *.jsonl is skipped with one line, not waited on; the good file is shown', async (t) => {
  const dir = dirWithMine(t);
  assert.equal(spawnSync('mkfifo', [join(dir, 'pipe.jsonl')]).status, 0);
  const r = await cli(['view', dir, '--list']);
  assert.equal(r.killed, false, 'tracehook view hung on the FIFO');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(MINE));
  assert.match(r.stderr, /^tracehook view: skipped 1 file:\n {2}\S*pipe\.jsonl is a FIFO, not a regular file\n$/);
});

test('view: a directory named x.jsonl is skipped with one line; the good file is still shown', async (t) => {
  const dir = dirWithMine(t);
  mkdirSync(join(dir, 'x.jsonl'));
  const r = await cli(['view', dir, '--list']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(MINE));
  assert.match(r.stderr, /^tracehook view: skipped 1 file:\n {2}\S*x\.jsonl is a directory, not a regular file\n$/);
});

test('view as a user who cannot read one file: that file is skipped with one line, the others shown', { skip: !isRoot && NOT_ROOT }, async (t) => {
  const dir = dirWithMine(t);
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'mine.jsonl'), 0o644);
  writeFileSync(join(dir, 'secret.jsonl'), spanLine(FORGED, 'secret'));
  chmodSync(join(dir, 'secret.jsonl'), 0o000);
  const r = await cli(['view', dir, '--list'], { user: 'nobody' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(MINE));
  assert.doesNotMatch(r.stdout, new RegExp(FORGED));
  assert.match(r.stderr, /^tracehook view: skipped 1 file:\n {2}\S*secret\.jsonl: cannot read it \(EACCES\)\n$/);
});

test('view as a user who cannot list one of the directories named: it is skipped with one line, the other shown', { skip: !isRoot && NOT_ROOT }, async (t) => {
  const dir = dirWithMine(t);
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'mine.jsonl'), 0o644);
  const closed = spansDir(t);
  writeFileSync(join(closed, 'secret.jsonl'), spanLine(FORGED, 'secret'));
  const r = await cli(['view', closed, dir, '--list'], { user: 'nobody' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(MINE));
  assert.equal(r.stderr, `tracehook view: skipped 1 file:\n  ${closed}: cannot read it (EACCES)\n`);
});

test("view: another user's file in a directory named on the command line is skipped and counted, unless --any-owner", { skip: !isRoot && NOT_ROOT }, async (t) => {
  const dir = dirWithMine(t);
  writeFileSync(join(dir, 'theirs.jsonl'), spanLine(FORGED, 'forged'));
  chownSync(join(dir, 'theirs.jsonl'), NOBODY, NOBODY);
  const r = await cli(['view', dir, '--list']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(MINE));
  assert.doesNotMatch(r.stdout, new RegExp(FORGED));
  assert.match(r.stderr, /^tracehook view: skipped 1 file:\n {2}\S*theirs\.jsonl is owned by uid 65534, another user \(--any-owner reads it\)\n$/);
  const any = await cli(['view', dir, '--list', '--any-owner']);
  assert.equal(any.code, 0, any.stderr);
  assert.match(any.stdout, new RegExp(FORGED));
  assert.equal(any.stderr, '');
});

/** A local OTLP/HTTP receiver that counts the spans posted to it. */
async function receiver(t) {
  const got = { spans: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d) => (body += d));
    req.on('end', () => {
      for (const rs of JSON.parse(body).resourceSpans) for (const ss of rs.scopeSpans) got.spans += ss.spans.length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  return { endpoint: `http://127.0.0.1:${server.address().port}`, got };
}

test('export: a symlink to /dev/zero named *.jsonl is not followed (the export ends, memory stays flat); the good file is sent', async (t) => {
  const dir = dirWithMine(t);
  symlinkSync('/dev/zero', join(dir, 'zero.jsonl'));
  const { endpoint, got } = await receiver(t);
  const r = await cli(['export', dir, '--endpoint', endpoint], { killMs: 20_000 });
  assert.equal(r.killed, false, 'tracehook export kept reading /dev/zero');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(got.spans, 1);
  assert.match(r.stdout, /^tracehook export: sent 1 span from 1 span file in 1 request/);
  assert.match(r.stderr, /^tracehook export: skipped 1 file:\n {2}\S*zero\.jsonl is a symlink \(not followed\)\n$/);
});

test('export: a FIFO named *.jsonl does not hang it; the good file is sent', async (t) => {
  const dir = dirWithMine(t);
  assert.equal(spawnSync('mkfifo', [join(dir, 'pipe.jsonl')]).status, 0);
  const { endpoint, got } = await receiver(t);
  const r = await cli(['export', dir, '--endpoint', endpoint]);
  assert.equal(r.killed, false, 'tracehook export hung on the FIFO');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(got.spans, 1);
  assert.match(r.stderr, /pipe\.jsonl is a FIFO, not a regular file/);
});

test('view: a last line of 65 MiB without a newline is skipped and counted, not accumulated; the lines before it are shown', async (t) => {
  const dir = dirWithMine(t);
  const file = join(dir, 'big.jsonl');
  writeFileSync(file, spanLine('b'.repeat(32), 'before'));
  const mib = Buffer.alloc(1024 * 1024, 'x');
  for (let i = 0; i < 65; i++) appendFileSync(file, mib);
  const r = await cli(['view', dir, '--list'], { killMs: 60_000 });
  assert.equal(r.killed, false);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(MINE));
  assert.match(r.stdout, /b{32}/);
  assert.match(r.stderr, /skipped 1 line that is not valid OTLP\/JSON:\n {2}\S*big\.jsonl:2 \(truncated last line\): line of 68157440 bytes, longer than the 64 MiB bound: skipped\n/);
});

test(
  "default directory: /tmp/spans is another user's, 0777, with a forged trace: view reads the preload's fallback /tmp/spans-0 instead, saying so once",
  { skip: !canUnshare && (isRoot ? 'unshare --mount is not permitted here' : NOT_ROOT) },
  async (t) => {
    const tmp = spansDir(t);
    // What /tmp will hold: another user's /tmp/spans with a forged trace, and ours, the fallback.
    mkdirSync(join(tmp, 'spans'));
    writeFileSync(join(tmp, 'spans', '1.jsonl'), spanLine(FORGED, 'forged'));
    chownSync(join(tmp, 'spans', '1.jsonl'), NOBODY, NOBODY);
    chownSync(join(tmp, 'spans'), NOBODY, NOBODY);
    chmodSync(join(tmp, 'spans'), 0o777);
    mkdirSync(join(tmp, 'spans-0'), { mode: 0o700 });
    writeFileSync(join(tmp, 'spans-0', '2.jsonl'), spanLine(MINE, 'mine'));
    const setup = '';
    const r = await runInPrivateTmp(tmp, setup, [process.execPath, join(ROOT, 'bin/tracehook.mjs'), 'view', '--list']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(MINE));
    assert.doesNotMatch(r.stdout, new RegExp(FORGED));
    assert.equal(r.stderr, 'tracehook view: /tmp/spans is owned by uid 65534, another user: not safe for span files; reading /tmp/spans-0 instead, where the preload writes in that case\n');
  },
);

test(
  "default directory: /tmp/spans is root's and sticky, and the fallback /tmp/spans-0 exists too: view reads both, another user's file in /tmp/spans skipped",
  { skip: !canUnshare && (isRoot ? 'unshare --mount is not permitted here' : NOT_ROOT) },
  async (t) => {
    const tmp = spansDir(t);
    mkdirSync(join(tmp, 'spans'));
    chmodSync(join(tmp, 'spans'), 0o1777);
    writeFileSync(join(tmp, 'spans', '1.jsonl'), spanLine(MINE, 'mine'));
    writeFileSync(join(tmp, 'spans', '3.jsonl'), spanLine(FORGED, 'forged'));
    chownSync(join(tmp, 'spans', '3.jsonl'), NOBODY, NOBODY);
    mkdirSync(join(tmp, 'spans-0'), { mode: 0o700 });
    writeFileSync(join(tmp, 'spans-0', '2.jsonl'), spanLine('c'.repeat(32), 'earlier'));
    const r = await runInPrivateTmp(tmp, '', [process.execPath, join(ROOT, 'bin/tracehook.mjs'), 'view', '--list']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(MINE));
    assert.match(r.stdout, /c{32}/);
    assert.doesNotMatch(r.stdout, new RegExp(FORGED));
    assert.equal(r.stderr, 'tracehook view: skipped 1 file:\n  /tmp/spans/3.jsonl is owned by uid 65534, another user (--any-owner reads it)\n');
  },
);

test('ui: a request without the token it printed is refused (404), with it served', async (t) => {
  const dir = dirWithMine(t);
  const server = spawn(process.execPath, ['bin/tracehook.mjs', 'ui', dir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => server.kill('SIGKILL'));
  let out = '';
  const url = await new Promise((resolve, reject) => {
    server.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = / on (http:\/\/127\.0\.0\.1:\d+\/\S*) \(Ctrl-C/.exec(out);
      if (m) resolve(new URL(m[1]));
    });
    server.on('exit', (code) => reject(new Error(`ui exited ${code}: ${out}`)));
  });
  const token = url.pathname.split('/')[1];
  assert.match(token, /^[A-Za-z0-9_-]{32}$/, url.href);
  const origin = `http://127.0.0.1:${url.port}`;
  const wrong = `${token[0] === 'A' ? 'B' : 'A'}${token.slice(1)}`;
  for (const path of ['/', '/api/traces', `/api/trace/${MINE}`, `/${wrong}/api/traces`, `/${token}`, `/${token.slice(1)}/api/traces`]) {
    const res = await fetch(`${origin}${path}`);
    assert.equal(res.status, 404, path);
    assert.doesNotMatch(await res.text(), new RegExp(MINE), path);
  }
  const list = await (await fetch(`${url}api/traces`)).json();
  assert.deepEqual(
    list.traces.map((tr) => tr.traceId),
    [MINE],
  );
  assert.equal((await fetch(`${url}api/trace/${MINE}`)).status, 200);
  assert.equal((await fetch(url)).status, 200);
});
