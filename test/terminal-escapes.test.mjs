// Terminal escapes (issue 29, item 4): text from span data or a peer reaches a terminal with its
// control characters escaped visibly (`\x1b`, `\x9b`), never raw. `tracehook view` prints span,
// service and event names, attributes and status messages of a hostile span file, and reports a
// skipped line without echoing it; an OTLP backend's reason phrase and body reach neither the
// traced app's stderr nor `tracehook export`'s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, start } from './helpers/fixture.mjs';

/** What a terminal acts on: C0 controls but newline, DEL, C1 controls (U+009B CSI among them). */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

const OSC_TITLE = '\x1b]0;owned\x07';
const OSC_CLIPBOARD = '\x1b]52;c;cm0gLXJmIH4=\x07';
const OSC_LINK = '\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07';
const CSI_CLEAR = '\x1b[2J\x1b[H';
const C1_CSI = '\u009b31m';

function cli(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/tracehook.mjs', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? err.signal) : 0, stdout, stderr });
    });
  });
}

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-escapes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const T0 = 1_700_000_000_000_000_000n;
const str = (stringValue) => ({ stringValue });

/** A span file whose names, attributes, events, links and status carry terminal escapes, plus a line that is not JSON. */
function hostileSpanFile(t) {
  const dir = tempDir(t);
  const span = {
    traceId: 'a'.repeat(32),
    spanId: 'b'.repeat(16),
    name: `GET /${OSC_TITLE}${OSC_CLIPBOARD}\rfake line`,
    kind: 2,
    startTimeUnixNano: String(T0),
    endTimeUnixNano: String(T0 + 5_000_000n),
    attributes: [
      { key: 'http.request.method', value: str('GET') },
      { key: 'url.path', value: str(`/x${CSI_CLEAR}`) },
      { key: 'user_agent.original', value: str(`curl ${C1_CSI}red`) },
      { key: `key${OSC_LINK}`, value: { arrayValue: { values: [str(`\u202eevil`), str('\x7f')] } } },
    ],
    events: [{ name: `exception${OSC_TITLE}`, timeUnixNano: String(T0 + 1_000_000n), attributes: [{ key: 'exception.message', value: str(`boom${CSI_CLEAR}`) }] }],
    links: [{ traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), attributes: [{ key: 'why', value: str(C1_CSI) }] }],
    status: { code: 2, message: `failed${C1_CSI}${OSC_TITLE}` },
  };
  const request = {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: str(`shop${CSI_CLEAR}`) },
            { key: 'process.pid', value: { intValue: 7 } },
          ],
        },
        scopeSpans: [{ scope: { name: 'http' }, spans: [span] }],
      },
    ],
  };
  writeFileSync(join(dir, '7.jsonl'), `${JSON.stringify(request)}\nnot json ${OSC_TITLE}${C1_CSI}\r\n`);
  return dir;
}

test('tracehook view (trees, -v, --list, --json, errors) escapes control characters from span data and skipped lines', async (t) => {
  const dir = hostileSpanFile(t);
  for (const args of [[], ['-v'], ['--list'], ['--json'], ['--service', `x${OSC_TITLE}`]]) {
    const { code, stdout, stderr } = await cli(['view', dir, ...args]);
    assert.equal(code, args[0] === '--service' ? 1 : 0, `${args}: ${stderr}`);
    assert.doesNotMatch(stdout, RAW_CONTROL, `${args}: stdout ${JSON.stringify(stdout)}`);
    assert.doesNotMatch(stderr, RAW_CONTROL, `${args}: stderr ${JSON.stringify(stderr)}`);
    if (args[0] !== '--service') {
      // The skipped line is named by position and reason, its text never echoed.
      assert.match(stderr, /skipped 1 line that is not valid OTLP\/JSON:\n {2}.*7\.jsonl:2: not JSON\n$/);
      assert.ok(!stderr.includes('owned'), stderr);
    }
    if (args.length === 0) {
      assert.ok(stdout.includes('GET /\\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x0dfake line'), stdout);
      assert.ok(stdout.includes('shop\\x1b[2J\\x1b[H[7]'), stdout);
      assert.ok(stdout.includes('failed\\x9b31m\\u001b]0;owned\\u0007'), stdout);
    }
    if (args[0] === '-v') {
      assert.ok(stdout.includes('user_agent.original = "curl \\x9b31mred"'), stdout);
      assert.ok(stdout.includes('key\\x1b]8;;https://evil.example/\\x07click'), stdout);
      assert.ok(stdout.includes('["\\u202eevil","\\x7f"]'), stdout);
      assert.ok(stdout.includes('exception\\x1b]0;owned\\x07'), stdout);
    }
    if (args[0] === '--json') {
      // Still the same JSON: C1 and bidi characters written as \u escapes.
      const request = JSON.parse(stdout);
      assert.equal(request.resourceSpans[0].scopeSpans[0].spans[0].status.message, `failed${C1_CSI}${OSC_TITLE}`);
    }
  }
});

/**
 * An OTLP/HTTP "backend" that answers each export with 400, a reason phrase carrying terminal
 * escapes (node:http would refuse to send one, so the response is written by hand) and a body too.
 */
async function escapingBackend(t) {
  const server = net.createServer((socket) => {
    let request = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      request += chunk.toString('latin1');
      const headerEnd = request.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = /content-length: *(\d+)/i.exec(request.slice(0, headerEnd));
      const complete = length ? request.length >= headerEnd + 4 + Number(length[1]) : request.endsWith('\r\n0\r\n\r\n');
      if (!complete) return;
      request = '';
      const body = Buffer.from(`bad request ${OSC_TITLE}${OSC_CLIPBOARD}${CSI_CLEAR}${C1_CSI}\rfake`);
      const head = `HTTP/1.1 400 Bad${OSC_TITLE}${OSC_CLIPBOARD}\x9b31m\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`;
      socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${server.address().port}`;
}

for (const level of ['warn', 'debug']) {
  test(`an OTLP backend's reason phrase and body reach the traced app's stderr escaped (OTEL_LOG_LEVEL=${level})`, async (t) => {
    const endpoint = await escapingBackend(t);
    const env = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_LOG_LEVEL: level, TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '5000' };
    const { code, stdout, stderr } = await start('exit-app.mjs', { args: ['normal', '3'], env }).done;
    assert.equal(code, 0, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /\[tracehook\] exporter: export to OTLP http\/json .* failed: HTTP status 400 \(Bad\\x1b\]0;owned\\x07\\x1b\]52;c;cm0gLXJmIH4=\\x07/);
    assert.doesNotMatch(stderr, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, JSON.stringify(stderr));
  });
}

test("tracehook export prints a backend's reason phrase and body escaped", async (t) => {
  const endpoint = await escapingBackend(t);
  const dir = hostileSpanFile(t);
  const { code, stderr } = await cli(['export', dir, '--endpoint', endpoint]);
  assert.equal(code, 1, stderr);
  assert.match(stderr, /answered HTTP 400 Bad\\x1b\]0;owned\\x07.*: bad request \\x1b\]0;owned\\x07/);
  assert.doesNotMatch(stderr, RAW_CONTROL, JSON.stringify(stderr));
});

test('file names of a span directory (whoever wrote it) reach view, export and ui escaped', async (t) => {
  const dir = tempDir(t);
  // A FIFO is skipped by name, and the name is the directory writer's choice.
  execFileSync('mkfifo', [join(dir, `x${OSC_TITLE}${C1_CSI}.jsonl`)]);
  for (const args of [
    ['view', dir],
    ['export', dir, '--endpoint', 'http://127.0.0.1:9/'],
  ]) {
    const out = await cli(args);
    assert.match(out.stderr, /skipped 1 file/, `${args[0]}: ${out.stderr}`);
    assert.match(out.stderr, /x\\x1b\]0;owned\\x07\\x9b31m\.jsonl/, args[0]);
    assert.doesNotMatch(out.stdout + out.stderr, RAW_CONTROL, args[0]);
  }
  const ui = spawn(process.execPath, ['bin/tracehook.mjs', 'ui', dir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => ui.kill('SIGKILL'));
  const url = await new Promise((resolve) => {
    let text = '';
    ui.stdout.on('data', (d) => {
      text += d;
      const m = /on (http:\S+\/) /.exec(text);
      if (m) resolve(m[1]);
    });
  });
  let stderr = '';
  ui.stderr.on('data', (d) => (stderr += d));
  // The index reads the directory when the page asks for the traces.
  assert.equal((await fetch(`${url}api/traces`)).status, 200);
  await new Promise((r) => setTimeout(r, 200));
  assert.match(stderr, /x\\x1b\]0;owned\\x07\\x9b31m\.jsonl/, stderr);
  assert.doesNotMatch(stderr, RAW_CONTROL);
});
