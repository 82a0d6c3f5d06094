// An Express app that loads pg and ioredis (clients created, never connected: no servers needed) and answers
// hello world. Prints `PORT=<n>` once listening on 127.0.0.1 (port from PORT, default 0).
// Usage: node bench/apps/express-pg-redis.cjs
// What it measures: the startup cost of instrumentations loaded as the app loads their packages.
const express = require('express');
const Redis = require('ioredis');
const pg = require('pg');

const pool = new pg.Pool({ host: '127.0.0.1', port: 1 });
const redis = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true });
const app = express();
app.get('/', (req, res) => res.type('text/plain').send('hello world'));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`PORT=${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.closeAllConnections?.();
    server.close();
    void pool.end();
    redis.disconnect();
    process.exit(0);
  });
}
