// Hello-world node:http server for the bench. Prints `PORT=<n>` once listening on 127.0.0.1 (port from PORT, default 0).
// Usage: node bench/apps/hello.cjs
// CommonJS on purpose: OpenTelemetry's `--require` register patches `require('http')` only, so an ESM app's
// `import http from 'node:http'` would go untraced there and make that variant look free.
// On SIGTERM/SIGINT it closes and exits normally, so `--cpu-prof` gets to write its profile.
// With BENCH_ELD=1 it samples its event-loop delay (perf_hooks, 10 ms resolution) and `GET /__bench/eld` answers
// `{"maxMs":…,"p99Ms":…}` since the previous such request (the first one just starts the window).
const http = require('node:http');

const eld = process.env.BENCH_ELD === '1' ? require('node:perf_hooks').monitorEventLoopDelay() : null;
eld?.enable();

const server = http.createServer((req, res) => {
  if (eld !== null && req.url === '/__bench/eld') {
    res.end(JSON.stringify({ maxMs: eld.max / 1e6, p99Ms: eld.percentile(99) / 1e6 }));
    eld.reset();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('hello world');
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`PORT=${server.address().port}`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.closeAllConnections?.();
    server.close();
    process.exit(0);
  });
}
