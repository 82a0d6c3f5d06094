// Throughput: the hello-world server under autocannon (-c 50, keep-alive), every request traced. Per round each
// variant gets a fresh server, a warm-up run (discarded) and a measured run; ratios are taken against untraced in
// the same round. Receivers run in their own process so draining spans does not slow autocannon down.
// With --pin on (the server on one core, autocannon on the other; see lib/pin.mjs) or --pin both (each variant both
// ways in every round), rows are labelled "pinned". Also the server's main-thread CPU per request (schedstat), what
// export adds to it (span files − no exporter: one span per request), and the longest event-loop delay the server saw
// over the measured run (perf_hooks; the app samples it with BENCH_ELD=1). The floor prototype (lib/floor-preload.cjs:
// a SERVER span record per request) runs beside them: every traced row prints its distance to the floor.
// Warm-up: 3 s of the same load before the measured run (steady state, as issue 30's goals are read; it was 2 s).
// Usage: node bench/throughput.mjs [--quick] [--rounds n] [--duration s] [--variants a,b] [--pin on|off|both]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { startSinkProcess } from './lib/otlp-sink.mjs';
import { command, floorOf, helloApp, partition, pick, workspace, VARIANTS } from './lib/variants.mjs';
import { httpGet } from './lib/http.mjs';
import { median, medianRatio, medianDiff, order } from './lib/stats.mjs';
import { row, goal, mainIfRun, log, vsFloor } from './lib/report.mjs';
import { exportCostRows } from './lib/export-cost.mjs';
import { threadSched } from './lib/cpu.mjs';
import { pinSelf, pinUnavailable, serverCpuList, unpinSelf } from './lib/pin.mjs';

const FLOORS = ['floor-context', 'floor-records', 'floor-export'];
const NAMES = ['untraced', 'tracehook-files', 'tracehook-otlp', 'tracehook-noexport', ...FLOORS, 'otel', 'dd-trace'];
/** --quick: the smoke run of our rows, without the third-party tracers and the floor's two lower levels. */
/** Run only when --variants names them: prototypes (tracehook-ring: issue 30 scope 1's exporter thread, bench/exporter-ring.mjs). */
const OPT_IN_NAMES = ['tracehook-ring'];
const QUICK_NAMES = ['untraced', 'tracehook-files', 'tracehook-otlp', 'tracehook-noexport', 'floor-records', 'floor-export'];
const RATIO_GOALS = { 'tracehook-files': 0.75, 'tracehook-otlp': 0.7 };
const P99_GOAL_MS = 1;
/** Main-thread CPU added per traced request (from /proc), µs (issue 30; issue 5 had 8). */
const CPU_GOAL_US = 15;
/** No event-loop turn spent on export longer than this, ms (issue 30; export's CPU per span: lib/export-cost.mjs). */
const TURN_GOAL_MS = 1;
/** Load before the measured run, s: steady state (issue 30: ≥ 3 s; was 2 s). */
const WARMUP_S = 3;
/** What --pin (default 'off') measures: the modes, each a full set of rows. */
const PIN_MODES = { off: [false], on: [true], both: [false, true] };
export const CONNECTIONS = 50;

/** autocannon against 127.0.0.1:port for `seconds`; resolves to its result. */
export function load(port, seconds, connections = CONNECTIONS) {
  return new Promise((resolve, reject) => {
    const inst = autocannon({ url: `http://127.0.0.1:${port}/`, connections, pipelining: 1, duration: seconds, timeout: 10 }, (err, res) => (err ? reject(err) : resolve(res)));
    // Bound: autocannon stops itself after `duration`; this is the backstop.
    const backstop = setTimeout(() => inst.stop(), (seconds + 15) * 1000);
    inst.once('done', () => clearTimeout(backstop));
  });
}

function dirBytes(dir) {
  let n = 0;
  for (const f of readdirSync(dir)) n += statSync(join(dir, f)).size;
  return n;
}

async function measure(name, sinks, ws, { warmupS, durationS, pinned }) {
  const v = VARIANTS[name];
  const sink = v.backend ? sinks[v.backend] : null;
  const spansDir = ws.spansDir();
  const { args, env } = command(name, helloApp, { port: sink?.port, spansDir, extraEnv: { BENCH_ELD: '1' } });
  const lines = lineWaiter();
  const child = startNode(args, { env, onLine: lines.onLine, cpus: pinned ? serverCpuList() : undefined });
  if (pinned) pinSelf();
  try {
    const { match } = await lines.wait(child, /^PORT=(\d+)/, 20_000);
    const port = Number(match[1]);
    await load(port, warmupS);
    await httpGet(port, '/__bench/eld'); // starts the event-loop delay window
    const files = v.tracehook || v.floor === 'export';
    const before = sink ? (await sink.stats())?.bytes : files ? dirBytes(spansDir) : 0;
    const cpu0 = threadSched(child.pid);
    const res = await load(port, durationS);
    const cpu1 = threadSched(child.pid);
    const eld = JSON.parse((await httpGet(port, '/__bench/eld')).body);
    await delay(200); // let a pending export land before reading the receiver's counters
    const after = sink ? (await sink.stats())?.bytes : files ? dirBytes(spansDir) : 0;
    if (res.errors || res.timeouts || res.non2xx) {
      log(`  ${name}: ${res.errors} errors, ${res.timeouts} timeouts, ${res.non2xx} non-2xx`);
    }
    if (child.exitCode !== null) throw new Error(`${name}: server exited during the run`);
    return {
      rps: res.requests.total / res.duration,
      p99: res.latency.p99,
      // Bytes that reached the receiver (or the span files) per request served: a variant that drops spans shows here.
      exportedPerRequest: ((after ?? NaN) - (before ?? NaN)) / res.requests.total,
      // The server's main thread only: the one that serves requests (helper threads are in the profile).
      cpuUsPerRequest: (cpu1.runNs - cpu0.runNs) / 1000 / res.requests.total,
      eldMaxMs: eld.maxMs,
    };
  } finally {
    if (pinned) unpinSelf();
    await stop(child);
  }
}

export async function run({ quick = false, rounds, duration, variants, pin = 'off' } = {}) {
  const nRounds = rounds ?? (quick ? 1 : 5);
  const durationS = duration ?? (quick ? 1 : 5);
  const warmupS = quick ? 0.5 : WARMUP_S;
  const noPin = pin !== 'off' ? pinUnavailable() : null;
  if (noPin) log(`throughput: --pin ${pin} ignored: ${noPin}`);
  const modes = noPin ? [false] : PIN_MODES[pin ?? 'off'];
  log(`throughput: ${nRounds} rounds × ${durationS} s (+${warmupS} s warm-up), ${CONNECTIONS} connections${modes.includes(true) ? `, pinned: ${modes.map(String).join(' and ')}` : ''}`);
  const names = pick([...(quick && !variants ? QUICK_NAMES : NAMES), ...(variants ? OPT_IN_NAMES : [])], variants);
  const { ok, na } = await partition(names);
  if (!ok.includes('untraced')) throw new Error('throughput: the untraced baseline cannot run');
  const sinks = { otlp: await startSinkProcess('accept'), dd: await startSinkProcess('accept', { any: true }) };
  const ws = workspace();
  const byMode = new Map(modes.map((m) => [m, { rps: [], p99: [], bytes: [], cpu: [], eld: [] }]));
  const deadline = Date.now() + (quick ? 90_000 : 720_000) * modes.length;
  try {
    for (let r = 0; r < nRounds && Date.now() < deadline; r++) {
      for (const pinned of modes) {
        const [a, b, c, d, e] = [{}, {}, {}, {}, {}];
        for (const name of order(ok, r)) {
          const m = await measure(name, sinks, ws, { warmupS, durationS, pinned });
          a[name] = m.rps;
          b[name] = m.p99;
          c[name] = m.exportedPerRequest;
          d[name] = m.cpuUsPerRequest;
          e[name] = m.eldMaxMs;
          await delay(200);
        }
        const acc = byMode.get(pinned);
        acc.rps.push(a);
        acc.p99.push(b);
        acc.bytes.push(c);
        acc.cpu.push(d);
        acc.eld.push(e);
        log(`  round ${r + 1}/${nRounds}${pinned ? ' pinned' : ''}: ${ok.map((n) => `${n} ${a[n].toFixed(0)}/s p99 ${b[n]} ms ${d[n].toFixed(1)} µs CPU/req`).join(', ')}`);
      }
    }
  } finally {
    await Promise.all(Object.values(sinks).map((s) => s.close()));
    ws.cleanup();
  }
  const rows = [];
  for (const pinned of modes) rows.push(...modeRows(names, na, byMode.get(pinned), { durationS, warmupS, pinned }));
  return rows;
}

/** The rows of one pinning mode. */
function modeRows(names, na, { rps, p99, bytes, cpu, eld }, { durationS, warmupS, pinned }) {
  const label = (m) => (pinned ? `${m}, pinned` : m);
  const rows = [];
  for (const name of names) {
    const g = RATIO_GOALS[name];
    if (na[name] !== undefined) {
      rows.push(row('throughput', label('requests/s'), name, null, 'req/s', { goal: g && goal(`≥ ×${g}`, NaN), note: 'n/a: ' + na[name] }));
      rows.push(row('throughput', label('p99 latency'), name, null, 'ms', { goal: g && goal(`≤ +${P99_GOAL_MS} ms`, NaN) }));
      continue;
    }
    const base = name === 'untraced';
    const fl = floorOf(name);
    const ratio = base ? null : medianRatio(rps, name);
    const exported = median(bytes.map((x) => x[name]));
    const v = VARIANTS[name];
    const exportNote = v.backend
      ? `receiver got ${exported.toFixed(0)} B/request`
      : (v.tracehook && name !== 'tracehook-noexport') || name === 'floor-export'
        ? `span files ${exported.toFixed(0)} B/request`
        : '';
    rows.push(
      row('throughput', label('requests/s'), name, median(rps.map((x) => x[name])), 'req/s', {
        vs: base ? null : { kind: 'ratio', value: ratio },
        floor: vsFloor(rps, name, fl),
        goal: g && goal(`≥ ×${g}`, ratio, (x) => x >= g),
        note: [`${rps.length} rounds × ${durationS} s after ${warmupS} s of load`, exportNote].filter(Boolean).join('; '),
      }),
    );
    const d = base ? null : medianDiff(p99, name);
    rows.push(
      row('throughput', label('p99 latency'), name, median(p99.map((x) => x[name])), 'ms', {
        vs: base ? null : { kind: 'diff', value: d },
        floor: vsFloor(p99, name, fl, 'diff'),
        goal: g && goal(`≤ +${P99_GOAL_MS} ms`, d, (x) => x <= P99_GOAL_MS),
      }),
    );
    const c = base ? null : medianDiff(cpu, name);
    const cg = g ? `≤ +${CPU_GOAL_US} µs` : undefined;
    rows.push(
      row('throughput', label('main-thread CPU per request'), name, median(cpu.map((x) => x[name])), 'µs', {
        vs: base ? null : { kind: 'diff', value: c },
        floor: vsFloor(cpu, name, fl, 'diff'),
        goal: cg && goal(cg, c, (x) => x <= CPU_GOAL_US),
        note: "/proc schedstat of the server's main thread",
      }),
    );
    const e = base ? null : medianDiff(eld, name);
    const eg = g ? `≤ +${TURN_GOAL_MS} ms` : undefined;
    rows.push(
      row('throughput', label('longest event-loop delay'), name, median(eld.map((x) => x[name])), 'ms', {
        vs: base ? null : { kind: 'diff', value: e },
        floor: vsFloor(eld, name, fl, 'diff'),
        goal: eg && goal(eg, e, (x) => x <= TURN_GOAL_MS),
        note: 'max of perf_hooks monitorEventLoopDelay (10 ms resolution) over the measured run: a bound on the longest turn spent on export, which it includes',
      }),
    );
  }
  // What export costs the thread the span ended on: one SERVER span per request.
  rows.push(...exportCostRows('throughput', label('main-thread CPU per span for export'), cpu, { names, na, note: 'per request (one SERVER span each)' }));
  return rows;
}

await mainIfRun(import.meta.url, run);
