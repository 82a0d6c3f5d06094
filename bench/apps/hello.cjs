// Hello-world node:http server for the bench. Prints `PORT=<n>` once listening on 127.0.0.1 (port from PORT, default 0).
// Usage: node bench/apps/hello.cjs
// CommonJS on purpose: OpenTelemetry's `--require` register patches `require('http')` only, so an ESM app's
// `import http from 'node:http'` would go untraced there and make that variant look free.
// On SIGTERM/SIGINT it closes and exits normally, so `--cpu-prof` gets to write its profile.
const http = require('node:http');

const server = http.createServer((req, res) => {
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
