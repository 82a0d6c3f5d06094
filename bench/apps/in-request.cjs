// Runs a measurement inside the handler of one HTTP request the app makes to itself, so every message or task
// is sent from a traced context (a server span) under any tracer, with no tracer API in the app. Prints
// `RESULT <json>` and exits. Used by the worker apps in this folder.
const http = require('node:http');

/**
 * measure(): Promise<object> runs in the request's context; its result is printed as `RESULT {...}`.
 * With BENCH_CONTEXT=none it runs outside any request instead (nothing traced is active).
 */
module.exports = async function inRequest(measure) {
  if (process.env.BENCH_CONTEXT === 'none') {
    console.log(`RESULT ${JSON.stringify(await measure())}`);
    process.exit(0);
  }
  const server = http.createServer((req, res) => {
    measure().then(
      (result) => res.end(JSON.stringify(result)),
      (err) => {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: String(err && err.stack ? err.stack : err) }));
      },
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const body = await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.address().port, path: '/measure', agent: false }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve(data));
    }).on('error', reject);
  });
  console.log(`RESULT ${body}`);
  process.exit(0);
};

/** Counts calls of `step(done)` completed in `ms`, keeping `lanes` in flight. */
module.exports.countFor = function countFor(ms, lanes, step) {
  return new Promise((resolve, reject) => {
    let n = 0;
    let active = lanes;
    const end = performance.now() + ms;
    const lane = () => {
      if (performance.now() >= end) {
        if (--active === 0) resolve(n);
        return;
      }
      step().then(() => {
        n++;
        lane();
      }, reject);
    };
    for (let i = 0; i < lanes; i++) lane();
  });
};
