// Runs a measurement inside the handler of one HTTP request the app makes to itself, so every message or task
// is sent from a traced context (a server span) under any tracer, with no tracer API in the app. Prints
// `RESULT <json>` and exits. Used by the worker apps in this folder. `countFor` also reports the CPU time of the
// main thread and of all other threads (workers, GC helpers) over the measured loop, from Linux /proc (NaN elsewhere).
// `phases` measures twice in one process: right after a short warm-up (BENCH_WARMUP_MS, 300: the old rows, JIT
// compilation of the workers inside the window) and again once the load has run BENCH_STEADY_WARMUP_MS (3000) in
// all (steady state, the rows issue 30's goals are read on).
const http = require('node:http');
const { readFileSync, readdirSync } = require('node:fs');
const { slowerThanMedian } = require('../lib/tail.cjs');

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
    http
      .get({ host: '127.0.0.1', port: server.address().port, path: '/measure', agent: false }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          data += d;
        });
        res.on('end', () => resolve(data));
      })
      .on('error', reject);
  });
  console.log(`RESULT ${body}`);
  process.exit(0);
};

/**
 * Counts calls of `step()` completed in `ms`, keeping `lanes` in flight. Resolves to the count; `lastCpu` then
 * holds the CPU µs per completed call of the main thread and of the other threads over that time.
 */
module.exports.countFor = function countFor(ms, lanes, step, latencies) {
  return new Promise((resolve, reject) => {
    let n = 0;
    let active = lanes;
    const end = performance.now() + ms;
    const before = cpuNs();
    const lane = () => {
      const t0 = performance.now();
      if (t0 >= end) {
        if (--active === 0) {
          const after = cpuNs();
          module.exports.lastCpu = { mainUsPerOp: (after.main - before.main) / 1000 / n, otherUsPerOp: (after.other - before.other) / 1000 / n };
          resolve(n);
        }
        return;
      }
      step().then(() => {
        if (latencies !== undefined && n < latencies.length) latencies[n] = performance.now() - t0;
        n++;
        lane();
      }, reject);
    };
    for (let i = 0; i < lanes; i++) lane();
  });
};

/**
 * The two measurements of a worker app, `lanes` calls of `step()` in flight: `durationMs` after a warm-up of
 * BENCH_WARMUP_MS (300), then `durationMs` again once the load has run BENCH_STEADY_WARMUP_MS (3000) in all.
 * With `tail`, each call's latency in the steady window is kept and `steady.slowShare` is the share of calls
 * slower than 3× their median. Resolves to `{ perSec, mainUsPerOp, otherUsPerOp, ops, steady: {…}, steadyAfterMs }`,
 * `ops` counting every call the process made (for spans per op).
 */
module.exports.phases = async function phases(durationMs, lanes, step, { tail = false } = {}) {
  const { countFor } = module.exports;
  const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 300);
  const steadyAfterMs = Math.max(warmupMs + durationMs, Number(process.env.BENCH_STEADY_WARMUP_MS ?? 3000));
  const t0 = performance.now();
  let ops = await countFor(warmupMs, lanes, step);
  const n1 = await countFor(durationMs, lanes, step);
  const first = { perSec: n1 / (durationMs / 1000), ...module.exports.lastCpu };
  ops += n1 + (await countFor(Math.max(0, steadyAfterMs - (performance.now() - t0)), lanes, step));
  const latencies = tail ? new Float64Array(1 << 20) : undefined;
  const n2 = await countFor(durationMs, lanes, step, latencies);
  const steady = { perSec: n2 / (durationMs / 1000), ...module.exports.lastCpu };
  if (tail) steady.slowShare = slowerThanMedian(latencies, Math.min(n2, latencies.length));
  return { ...first, ops: ops + n2, steady, steadyAfterMs };
};
