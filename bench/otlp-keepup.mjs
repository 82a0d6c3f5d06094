// OTLP keep-up: the hello-world server under autocannon at full speed (-c 50), every request traced and sent over
// OTLP/HTTP to a healthy local receiver in its own process. Reports how many spans ended, were exported and were
// dropped (from the exit line `losses: …`, printed only when some were lost), and the export requests the
// receiver saw (spans per request). The goal is 0 dropped: the export path keeps up with the app it traces.
// Usage: node bench/otlp-keepup.mjs [--duration s] [--rounds n]
import autocannon from 'autocannon';
import { startNode, stop, lineWaiter } from './lib/proc.mjs';
import { startSinkProcess } from './lib/otlp-sink.mjs';
import { command, helloApp } from './lib/variants.mjs';
import { goal, mainIfRun, log, row } from './lib/report.mjs';

function load(port, seconds) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `http://127.0.0.1:${port}/`, connections: 50, pipelining: 1, duration: seconds, timeout: 10 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** One round: a fresh server and receiver. @returns `{ reqPerSec, requests, ended, exported, dropped, exportRequests }` */
async function round(seconds) {
  const sink = await startSinkProcess('accept');
  const { args, env } = command('tracehook-otlp', helloApp, { port: sink.port });
  const lines = lineWaiter();
  const child = startNode(args, { env, onLine: lines.onLine });
  try {
    const { match } = await lines.wait(child, /^PORT=(\d+)/, 20_000);
    const res = await load(Number(match[1]), seconds);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    const m = child.stderrText().match(/losses: (\d+) of (\d+) ended spans were lost \(queue full: (\d+)[^)]*\); (\d+) exported/);
    const stats = await sink.stats();
    const requests = res.requests.total;
    return {
      reqPerSec: Math.round(res.requests.average),
      requests,
      dropped: m ? Number(m[3]) : 0,
      exportRequests: stats.traceRequests,
      spansPerExport: stats.traceRequests ? Math.round(requests / stats.traceRequests) : 0,
    };
  } finally {
    await stop(child);
    await sink.close();
  }
}

/** The scenario: `rounds` rounds of `duration` s (default 3 × 5 s, `--quick` 1 × 3 s); one row per round. */
export async function run({ quick = false, rounds, duration } = {}) {
  const seconds = duration ?? (quick ? 3 : 5);
  const rows = [];
  for (let i = 0; i < (rounds ?? (quick ? 1 : 3)); i++) {
    const r = await round(seconds);
    log(`round ${i + 1}: ${r.reqPerSec} req/s, ${r.requests} requests (one span each), ${r.dropped} dropped for a full queue, ${r.exportRequests} export requests (≈ ${r.spansPerExport} spans each)`);
    rows.push(
      row('otlp-keepup', 'spans dropped (queue full)', 'tracehook-otlp', r.dropped, 'spans', {
        goal: goal('0 dropped', r.dropped, (x) => x === 0),
        note: `${r.reqPerSec} req/s, ≈ ${r.spansPerExport} spans per export request`,
      }),
    );
  }
  return rows;
}

await mainIfRun(import.meta.url, run);
