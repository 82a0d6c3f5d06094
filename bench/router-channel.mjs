// Express 5's route: router's `express.router.request` TracingChannel or tracehook's patch (issue 31). CPU time of
// the server process per request (process.cpuUsage over 20 000 requests, autocannon -c 10, after 2 000 to warm up),
// untraced and under tracehook (which takes the route by its patch of Layer#handleRequest / Route#dispatch), each
// with and without a subscriber to the channel; variants interleaved per round, medians printed.
// Usage: node bench/router-channel.mjs [rounds, default 9]
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const spans = mkdtempSync(join(tmpdir(), 'tracehook-bench-router-'));
const traced = { execArgv: ['--import', '@tracehook/register'], env: { TRACEHOOK_SPANS_DIR: spans } };
const VARIANTS = {
  untraced: { execArgv: [], env: {} },
  'untraced + channel': { execArgv: [], env: { ROUTER_CHANNEL: '1' } },
  tracehook: traced,
  'tracehook + channel': { ...traced, env: { ...traced.env, ROUTER_CHANNEL: '1' } },
};
const rounds = Number(process.argv[2] ?? 9);
const perRequest = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, v] of Object.entries(VARIANTS)) {
    const child = fork(join(ROOT, 'bench', 'apps', 'express5-router.cjs'), { cwd: ROOT, execArgv: v.execArgv, env: { ...process.env, ...v.env }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    const port = await new Promise((resolve) => child.stdout.on('data', (d) => /listening (\d+)/.test(d) && resolve(Number(/listening (\d+)/.exec(d)[1]))));
    const url = `http://127.0.0.1:${port}/users/7`;
    await autocannon({ url, connections: 10, amount: 2000 });
    child.send('start');
    const result = await autocannon({ url, connections: 10, amount: 20000 });
    const cpu = await new Promise((resolve) => {
      child.once('message', (m) => resolve(m.cpu));
      child.send('stop');
    });
    (perRequest[name] ??= []).push(cpu / result.requests.total);
  }
}
rmSync(spans, { recursive: true, force: true });
for (const [name, values] of Object.entries(perRequest)) {
  values.sort((a, b) => a - b);
  console.log(`${name.padEnd(20)} CPU per request: median ${values[values.length >> 1].toFixed(1)} µs (${values.map((v) => v.toFixed(1)).join(' ')})`);
}
