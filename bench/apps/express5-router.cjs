// Usage: forked by bench/router-channel.mjs (IPC: 'start', 'stop' → { cpu } in µs). An Express 5 app with five
// middlewares and a mounted router with one route. ROUTER_CHANNEL=1 subscribes to router's `express.router.request`
// TracingChannel with the least a route-taking subscriber does (keeps the route of the layer that runs).
const express = require('express');
if (process.env.ROUTER_CHANNEL === '1') {
  const route = Symbol('route');
  require('node:diagnostics_channel')
    .tracingChannel('express.router.request')
    .subscribe({
      start(ctx) {
        if (typeof ctx.route === 'string' && ctx.req) ctx.req[route] = ctx.route;
      },
      end() {},
      asyncStart() {},
      asyncEnd() {},
      error() {},
    });
}
const app = express();
for (let i = 0; i < 5; i++) app.use((req, res, next) => next());
const users = express.Router();
users.get('/:id', (req, res) => res.end('ok'));
app.use('/users', users);
const server = app.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
let base;
process.on('message', (m) => {
  if (m === 'start') base = process.cpuUsage();
  if (m === 'stop') {
    const used = process.cpuUsage(base);
    process.send({ cpu: used.user + used.system }, () => process.exit(0));
  }
});
