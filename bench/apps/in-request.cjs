// Runs a measurement inside the handler of one HTTP request the app makes to itself, so every message or task
// is sent from a traced context (a server span) under any tracer, with no tracer API in the app. Prints
// `RESULT <json>` and exits. Used by the worker apps in this folder. `countFor` also reports the CPU time of the
// main thread and of all other threads (workers, GC helpers) over the measured loop, from Linux /proc (NaN elsewhere).
const http = require('node:http');
const { readFileSync, readdirSync } = require('node:fs');

/** CPU ns run so far by this process's main thread and by its other threads (`/proc/self/task/<tid>/schedstat`). */
function cpuNs() {
  let main = 0;
  let other = 0;
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (Number(tid) === process.pid) main += ns;
      else other += ns;
    }
  } catch {
    return { main: NaN, other: NaN };
  }
  return { main, other };
}

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

/**
 * Counts calls of `step()` completed in `ms`, keeping `lanes` in flight. Resolves to the count; `lastCpu` then
 * holds the CPU µs per completed call of the main thread and of the other threads over that time.
 */
module.exports.countFor = function countFor(ms, lanes, step) {
  return new Promise((resolve, reject) => {
    let n = 0;
    let active = lanes;
    const end = performance.now() + ms;
    const before = cpuNs();
    const lane = () => {
      if (performance.now() >= end) {
        if (--active === 0) {
          const after = cpuNs();
          module.exports.lastCpu = { mainUsPerOp: (after.main - before.main) / 1000 / n, otherUsPerOp: (after.other - before.other) / 1000 / n };
          resolve(n);
        }
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
