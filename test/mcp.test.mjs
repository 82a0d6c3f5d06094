// `tracehook mcp`: the Model Context Protocol server on span files of a real traced app
// (test/fixtures/mcp-app.mjs: Express 5 routes, one slow, one that throws a TypeError, and a plain
// node:http route that records a RangeError through the API), driven by the official SDK's own
// client over stdio (StdioClientTransport spawning `tracehook mcp DIR`), as a coding agent does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, run, spansDir, start } from './helpers/fixture.mjs';

let dir;
after(() => rmSync(dir, { recursive: true, force: true }));
before(async () => {
  dir = spansDir();
  const result = await run('mcp-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'api' }, timeoutMs: 30_000 });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^done$/m);
});

/** A connected SDK client of `tracehook mcp <path>`; closed when the test ends. @returns `{ client, stderr() }` */
async function connect(t, path = dir) {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['bin/tracehook.mjs', 'mcp', path], cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'tracehook-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, stderr: () => stderr };
}

/** The one trace whose client span asked for `path`. */
async function traceOf(client, path) {
  const { traces } = await call(client, 'list_traces', { where: [`url.path=${path}`] });
  assert.equal(traces.length, 1, path);
  return traces[0];
}

/** Calls a tool; its answer is one text item of JSON. */
async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, 'text');
  return result.isError ? { error: result.content[0].text } : JSON.parse(result.content[0].text);
}

test('mcp lists its tools, all read-only, each with an input schema', async (t) => {
  const { client } = await connect(t);
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['list_traces', 'slowest_traces', 'failing_traces', 'get_trace', 'critical_path', 'compare_traces'],
  );
  for (const tool of tools) {
    assert.equal(tool.annotations.readOnlyHint, true, tool.name);
    assert.equal(tool.inputSchema.type, 'object', tool.name);
    assert.ok(tool.description.length > 20, tool.name);
  }
  assert.match(client.getServerVersion().name, /^tracehook$/);
  const { stdout: help } = await promisify(execFile)(process.execPath, ['bin/tracehook.mjs', 'mcp', '--help'], { cwd: ROOT });
  for (const tool of tools) assert.ok(help.includes(tool.name), `tracehook mcp --help names ${tool.name}`);
});

test('mcp list_traces and slowest_traces: filters by route, service, errors, where; newest or longest first', async (t) => {
  const { client } = await connect(t);
  const all = await call(client, 'list_traces');
  assert.equal(all.matching, 4);
  assert.ok(all.traces.every((tr) => /^[0-9a-f]{32}$/.test(tr.trace_id) && tr.services.includes('api')));
  const starts = all.traces.map((tr) => tr.start);
  assert.deepEqual(starts, [...starts].sort().reverse(), 'newest first');
  const users = await call(client, 'list_traces', { route: '/users/*' });
  assert.equal(users.matching, 2);
  const slowest = await call(client, 'slowest_traces');
  const durations = slowest.traces.map((tr) => tr.duration_ms);
  assert.deepEqual(
    durations,
    [...durations].sort((a, b) => b - a),
    'longest first',
  );
  const one = await call(client, 'slowest_traces', { route: '/users/*', limit: 1 });
  assert.equal(one.shown, 1);
  assert.equal(one.matching, 2);
  assert.equal((await call(client, 'list_traces', { where: ['http.route=/users/:id', 'url.path=/users/s*'] })).matching, 1);
  assert.equal((await call(client, 'list_traces', { errors: true })).matching, 2);
  assert.equal((await call(client, 'list_traces', { service: 'nope' })).matching, 0);
  const bad = await call(client, 'list_traces', { limit: 1000 });
  assert.match(bad.error, /^limit: expected a whole number from 1 to 100, got 1000$/);
});

test('mcp failing_traces: the error reason, a recorded exception type and message, and the Express route that threw', async (t) => {
  const { client } = await connect(t);
  const failing = await call(client, 'failing_traces');
  assert.equal(failing.matching, 2);
  const errors = failing.traces.flatMap((tr) => tr.errors);
  const pay = errors.find((e) => e.kind === 'SERVER' && e.exception?.type === 'RangeError');
  assert.ok(pay, JSON.stringify(failing));
  assert.equal(pay.exception.message, 'card declined: insufficient funds');
  assert.equal(pay.status_message, 'card declined: insufficient funds');
  const boom = errors.find((e) => e.kind === 'SERVER' && e.route === '/boom');
  assert.ok(boom, 'the Express route that threw is a failing SERVER span, named by its route');
  // Its reason, recorded by the route-error hook (issue 33, item 1): the TypeError's type and message.
  assert.match(boom.status_message, /Cannot read properties of undefined/);
  assert.equal(boom.exception?.type, 'TypeError');
  assert.match(boom.exception?.message, /Cannot read properties of undefined/);
});

test('mcp get_trace: a tree parent-first with depth, attribute values cut, at most max_spans spans', async (t) => {
  const { client } = await connect(t);
  const slow = await traceOf(client, '/users/slow');
  const tree = await call(client, 'get_trace', { trace_id: slow.trace_id.slice(0, 10) });
  assert.equal(tree.trace_id, slow.trace_id);
  assert.deepEqual(
    tree.spans.map((s) => [s.depth, s.kind, s.name]),
    [
      [0, 'CLIENT', 'GET'],
      [1, 'SERVER', 'GET /users/:id'],
      [2, 'INTERNAL', 'lookup user'],
    ],
  );
  assert.equal(tree.spans[1].parent_span_id, tree.spans[0].span_id);
  assert.equal(tree.spans[1].attributes['app.note'].length, 301, 'a 5000-character value is cut to 300 and …');
  assert.ok(tree.spans[1].attributes['app.note'].endsWith('…'));
  const cut = await call(client, 'get_trace', { trace_id: slow.trace_id, max_spans: 2 });
  assert.equal(cut.spans_shown, 2);
  assert.equal(cut.spans_omitted, 1);
  assert.equal((await call(client, 'get_trace', { trace_id: '0'.repeat(32) })).error, `trace_id: no trace id starts with ${'0'.repeat(32)}`);
  assert.equal((await call(client, 'get_trace', { trace_id: 'xyz' })).error, 'trace_id: expected a trace id (32 hex chars, or a prefix of one), got "xyz"');
});

test('mcp critical_path and compare_traces: where the slow request spent its time, and how it differs from the fast one', async (t) => {
  const { client } = await connect(t);
  const slow = await traceOf(client, '/users/slow');
  const fast = await traceOf(client, '/users/1');
  const path = await call(client, 'critical_path', { trace_id: slow.trace_id });
  // The path covers the root span: the trace at most (a span may end after the root), the 400 ms lookup at least.
  assert.ok(path.path_ms <= slow.duration_ms + 0.01 && path.path_ms >= 390, JSON.stringify(path));
  const lookup = path.by_time_on_path.find((s) => s.name === 'lookup user');
  assert.ok(lookup.on_path_ms >= 390 && lookup.self_ms === lookup.on_path_ms, `the 400 ms lookup is on the path\n${JSON.stringify(path)}`);
  assert.ok(path.segments.length >= 3);
  const c = await call(client, 'compare_traces', { trace_a: fast.trace_id, trace_b: slow.trace_id });
  assert.equal(c.matched, 3);
  assert.ok(Math.abs(c.delta_ms - (slow.duration_ms - fast.duration_ms)) < 0.01);
  assert.ok(
    c.changed.some((row) => row.path === 'api: GET > api: GET /users/:id > api: lookup user' && row.b_ms >= 390),
    JSON.stringify(c.changed),
  );
});

test('mcp re-reads the span files before each call: traces written after it started are answered', async (t) => {
  const empty = spansDir(t);
  const { client, stderr } = await connect(t, empty);
  assert.equal((await call(client, 'list_traces')).matching, 0);
  cpSync(dir, empty, { recursive: true });
  assert.equal((await call(client, 'list_traces')).matching, 4);
  assert.match(stderr(), /^tracehook mcp: serving .* on stdio\n$/);
});

test('mcp writes only JSON-RPC messages to stdout, and exits 0 when the client closes its stdin', async () => {
  const server = start(null, { command: ['bin/tracehook.mjs', 'mcp', dir], timeoutMs: 20_000 });
  const send = (message) => server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  await server.ready(/"id":1/);
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/call', params: { name: 'failing_traces', arguments: { limit: 1 } } });
  send({ id: 3, method: 'tools/call', params: { name: 'nope', arguments: {} } });
  await server.ready(/"id":3/);
  await server.ready(/"id":2/);
  server.child.stdin.end();
  const { code, stdout } = await server.done;
  assert.equal(code, 0);
  // Every line a JSON-RPC message; answers may come in any order.
  const messages = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .sort((a, b) => a.id - b.id);
  assert.deepEqual(
    messages.map((m) => [m.jsonrpc, m.id]),
    [
      ['2.0', 1],
      ['2.0', 2],
      ['2.0', 3],
    ],
  );
  assert.equal(messages[0].result.serverInfo.name, 'tracehook');
  assert.equal(JSON.parse(messages[1].result.content[0].text).shown, 1);
  assert.equal(messages[2].result.isError, true);
  assert.match(messages[2].result.content[0].text, /^unknown tool "nope"; the tools are list_traces, /);
});
