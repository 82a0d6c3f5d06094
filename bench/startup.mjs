// Startup: time from spawn() to the first HTTP 200 of the hello-world server, per variant, rounds interleaved; then
// the same for an Express app that loads pg and ioredis (untraced and tracehook-files only), where instrumentations
// are loaded as the app loads their packages.
// Everything counts: node's own start, the preload, the app's imports, listen, the first request.
// The Express app's own start varies by ±100 ms from one spawn to the next on a 2-core machine (≈ 250 modules read and
// compiled), ten times the hello-world server's spread: it gets more rounds (40; --db-rounds). Even so, the median
// of its per-round differences is known only to ±10-20 ms here; each row's note gives its 95% interval.
// Then issue 30's two: a script that prints one line and exits (spawn → exit), and starting a worker thread
// (`new Worker()` → its first message, and the worker's heap then, apps/worker-start.cjs).
// Each goal row is also held against its floor: the floor prototype (lib/floor-preload.cjs, span files), and for the
// disabled rows an empty `--import`.
// Usage: node bench/startup.mjs [--quick] [--rounds n] [--db-rounds n] [--variants a,b]
import { once as once_ } from 'node:events';
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { startSink } from './lib/otlp-sink.mjs';
import { fileURLToPath } from 'node:url';
import { command, floorOf, helloApp, partition, pick, workspace, VARIANTS } from './lib/variants.mjs';
import { httpGet } from './lib/http.mjs';
import { MIN_INTERVAL_ROUNDS, median, medianDiff, medianDiffInterval, order } from './lib/stats.mjs';
import { row, goal, mainIfRun, log, vsFloor } from './lib/report.mjs';

const NAMES = ['untraced', 'tracehook-files', 'tracehook-disabled', 'import-floor', 'floor-export', 'tracehook-otlp', 'otel', 'dd-trace'];
/** name → [text, check(d), baseline the difference d is taken against (default untraced)], per app. */
const GOALS = {
  'tracehook-files': ['≤ +50 ms', (d) => d <= 50],
  'tracehook-disabled': ['≤ +2 ms', (d) => d <= 2],
};
/** Issue 30: a one-line script pays ≤ +25 ms traced, and disabled no more than an empty --import (Node 22/24). */
const PRINT_GOALS = {
  'tracehook-files': ['≤ +25 ms', (d) => d <= 25],
  'tracehook-disabled': ['≤ an empty --import', (d) => d <= 0, 'import-floor'],
};
/** Issue 30: a worker thread starts ≤ +10 ms later and with ≤ +1 MB of heap. */
const WORKER_GOALS = { ms: 10, heapMiB: 1 };
const PRINT_APP = fileURLToPath(new URL('./apps/print-line.cjs', import.meta.url));
const PRINT_NAMES = ['untraced', 'tracehook-files', 'tracehook-disabled', 'import-floor', 'floor-export'];
const WORKER_APP = fileURLToPath(new URL('./apps/worker-start.cjs', import.meta.url));
const WORKER_NAMES = ['untraced', 'tracehook-files', 'floor-export'];
/** Worker starts: fewer rounds (each process starts 5 workers, one after another). */
const WORKER_ROUNDS = 10;
const TIMEOUT_MS = 20_000;
const DB_APP = fileURLToPath(new URL('./apps/express-pg-redis.cjs', import.meta.url));
const DB_NAMES = ['untraced', 'tracehook-files', 'floor-export'];
const DB_ROUNDS = 40;
const MEASURES = new Map([
  [helloApp, 'spawn → first HTTP 200'],
  [DB_APP, 'spawn → first HTTP 200, express + pg + ioredis app'],
  [PRINT_APP, 'spawn → exit, a script that prints one line'],
]);

/** One spawn → first 200 (→ exit for the one-line script), in ms. */
async function once(name, sinks, ws, app = helloApp) {
  const lines = lineWaiter();
  const port = VARIANTS[name].backend ? sinks[VARIANTS[name].backend].port : undefined;
  const { args, env } = command(name, app, { port, spansDir: ws.spansDir() });
  const t0 = performance.now();
  const child = startNode(args, { env, onLine: lines.onLine });
  try {
    if (app === PRINT_APP) {
      const [code] = child.exitCode !== null ? [child.exitCode] : await once_(child, 'exit');
      const t = performance.now();
      if (code !== 0) throw new Error(`${name}: the one-line script exited ${code}: ${child.stderrText().slice(-300)}`);
      return t - t0;
    }
    const { match } = await lines.wait(child, /^PORT=(\d+)/, TIMEOUT_MS);
    const res = await httpGet(Number(match[1]), '/', TIMEOUT_MS);
    if (res.status !== 200) throw new Error(`${name}: first response was ${res.status}`);
    return res.t - t0;
  } finally {
    await stop(child);
  }
}

export async function run({ quick = false, rounds, dbRounds, variants } = {}) {
  const nRounds = rounds ?? (quick ? 3 : 20);
  const nDbRounds = dbRounds ?? (quick ? 3 : DB_ROUNDS);
  log(`startup: ${nRounds} rounds`);
  const names = pick(NAMES, variants);
  const { ok, na } = await partition(names);
  if (!ok.includes('untraced')) throw new Error('startup: the untraced baseline cannot run');
  const sinks = { otlp: await startSink('accept'), dd: await startSink('accept', { any: true }) };
  const ws = workspace();
  const rows = [];
  // The time caps bound only the default round counts; an explicit count (--rounds, --db-rounds) is run to the end.
  const deadline = rounds == null ? Date.now() + (quick ? 60_000 : 300_000) : Infinity;
  const dbCapMs = dbRounds == null ? (quick ? 30_000 : 150_000) : Infinity;
  try {
    rows.push(...(await measure(helloApp, names, ok, na, { nRounds, deadline, sinks, ws, goals: GOALS })));
    // --quick: the Express app without the floor (the smoke run has its floor rows elsewhere).
    const dbNames = DB_NAMES.filter((n) => names.includes(n) && !(quick && VARIANTS[n].floor));
    if (dbNames.length > 1)
      rows.push(
        ...(await measure(
          DB_APP,
          dbNames,
          ok.filter((n) => dbNames.includes(n)),
          na,
          { nRounds: nDbRounds, deadline: Date.now() + dbCapMs, sinks, ws, goals: GOALS },
        )),
      );
    const printNames = PRINT_NAMES.filter((n) => names.includes(n));
    rows.push(
      ...(await measure(
        PRINT_APP,
        printNames,
        ok.filter((n) => printNames.includes(n)),
        na,
        { nRounds: quick && rounds == null ? 2 : nRounds, deadline: rounds == null ? Date.now() + (quick ? 20_000 : 120_000) : Infinity, sinks, ws, goals: PRINT_GOALS },
      )),
    );
    const workerNames = WORKER_NAMES.filter((n) => names.includes(n));
    const nWorkerRounds = rounds ?? (quick ? 1 : WORKER_ROUNDS);
    rows.push(
      ...(await workerStarts(
        workerNames,
        ok.filter((n) => workerNames.includes(n)),
        na,
        { nRounds: nWorkerRounds, deadline: rounds == null ? Date.now() + (quick ? 20_000 : 120_000) : Infinity, ws },
      )),
    );
  } finally {
    await Promise.all(Object.values(sinks).map((s) => s.close()));
    ws.cleanup();
  }
  return rows;
}

/** One process starting worker threads: medians of its workers' start ms and heap bytes, and main-thread heap. */
async function workerRun(name, ws) {
  const lines = lineWaiter();
  const { args, env } = command(name, WORKER_APP, { spansDir: ws.spansDir() });
  const child = startNode(args, { env, onLine: lines.onLine });
  try {
    const { match } = await lines.wait(child, /^RESULT (.*)$/, TIMEOUT_MS);
    const r = JSON.parse(match[1]);
    // cpuMs: null entries (JSON's NaN) where the worker could not read its schedstat (not Linux).
    const cpu = (r.cpuMs ?? []).filter((x) => typeof x === 'number');
    return { ms: median(r.ms), heapMiB: median(r.heapBytes) / 2 ** 20, cpuMs: cpu.length > 0 ? median(cpu) : NaN, mainHeapMiB: r.mainHeapBytesPerWorker / 2 ** 20 };
  } finally {
    await stop(child);
  }
}

/** Interleaved rounds of the worker-start app: ms to a worker's first message, and the worker's heap then. */
async function workerStarts(names, ok, na, { nRounds, deadline, ws }) {
  const ms = [];
  const heap = [];
  const cpu = [];
  const mainHeap = [];
  for (let r = 0; r < nRounds && Date.now() < deadline; r++) {
    const [a, b, c, d] = [{}, {}, {}, {}];
    for (const name of order(ok, r)) {
      const m = await workerRun(name, ws);
      a[name] = m.ms;
      b[name] = m.heapMiB;
      c[name] = m.mainHeapMiB;
      d[name] = m.cpuMs;
      await delay(50);
    }
    ms.push(a);
    heap.push(b);
    mainHeap.push(c);
    cpu.push(d);
    log(`  worker start round ${r + 1}/${nRounds}: ${ok.map((n) => `${n} ${a[n].toFixed(1)} ms ${b[n].toFixed(2)} MiB ${d[n].toFixed(1)} ms CPU`).join(', ')}`);
  }
  const rows = [];
  for (const name of names) {
    const traced = name === 'tracehook-files';
    if (na[name] !== undefined) {
      rows.push(row('startup', 'new Worker() → its first message', name, null, 'ms', { goal: traced ? goal(`≤ +${WORKER_GOALS.ms} ms`, NaN) : undefined, note: 'n/a: ' + na[name] }));
      continue;
    }
    const base = name === 'untraced';
    const d = base ? null : medianDiff(ms, name);
    rows.push(
      row('startup', 'new Worker() → its first message', name, median(ms.map((x) => x[name])), 'ms', {
        vs: base ? null : { kind: 'diff', value: d },
        floor: vsFloor(ms, name, floorOf(name), 'diff'),
        goal: traced ? goal(`≤ +${WORKER_GOALS.ms} ms`, d, (x) => x <= WORKER_GOALS.ms) : undefined,
        note: `${ms.length} rounds, median of 5 workers started one after another in each`,
      }),
    );
    // The worker thread's own CPU: on a loaded machine (the bench's 2 shared cores) the wall-clock row above also
    // counts the time the thread waited to run; this one does not.
    if (cpu.every((x) => Number.isFinite(x[name]))) {
      rows.push(
        row('startup', "a new worker thread's CPU to its first message", name, median(cpu.map((x) => x[name])), 'ms', {
          vs: base ? null : { kind: 'diff', value: medianDiff(cpu, name) },
          floor: vsFloor(cpu, name, floorOf(name), 'diff'),
          note: `the worker's /proc/thread-self/schedstat when it posts its first message; ${cpu.length} rounds, median of 5 workers in each`,
        }),
      );
    }
    const h = base ? null : medianDiff(heap, name);
    const mh = base ? null : medianDiff(mainHeap, name);
    rows.push(
      row('startup', "a new worker's heap at its first message", name, median(heap.map((x) => x[name])), 'MiB', {
        vs: base ? null : { kind: 'diff', value: h },
        floor: vsFloor(heap, name, floorOf(name), 'diff'),
        goal: traced ? goal(`≤ +${WORKER_GOALS.heapMiB} MiB`, h, (x) => x <= WORKER_GOALS.heapMiB) : undefined,
        note: `the worker's process.memoryUsage().heapUsed (no GC forced)${base ? '' : `; main thread's heap ${mh >= 0 ? '+' : '−'}${Math.abs(mh).toFixed(2)} MiB per worker vs untraced`}`,
      }),
    );
  }
  return rows;
}

/**
 * For the disabled row: its distance from an empty `--import` (median of per-round differences), the part of the
 * added time that is tracehook's own rather than Node starting its ES module loader for any `--import`.
 */
function floorNote(results, name) {
  if (name !== 'tracehook-disabled' || !results.every((r) => Number.isFinite(r['import-floor']))) return '';
  const own = medianDiff(results, name, 'import-floor');
  return `; an empty --import costs ${medianDiff(results, 'import-floor').toFixed(1)} ms of it, tracehook's own ${own >= 0 ? '+' : '−'}${Math.abs(own).toFixed(1)} ms`;
}

/**
 * For a row with a goal: the 95% bootstrap interval of its difference against the goal's baseline (untraced unless
 * it names another), and whether the goal's verdict
 * holds across it (a verdict the interval straddles is not decided by this run's rounds).
 */
function intervalNote(results, name, g) {
  if (!g) return '';
  const [low, high] = medianDiffInterval(results, name, g[2]);
  if (low === -Infinity) return `; under ${MIN_INTERVAL_ROUNDS} rounds: no 95% interval, not decided`;
  if (!Number.isFinite(low)) return '';
  const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
  const decided = g[1](low) === g[1](high) ? 'decided' : 'not decided by these rounds';
  return `; 95% interval ${signed(low)} to ${signed(high)} ms, ${decided}`;
}

/** Interleaved rounds of `app` over the variants in `ok`; one row per name. */
async function measure(app, names, ok, na, { nRounds, deadline, sinks, ws, goals }) {
  const results = [];
  for (let r = 0; r < nRounds && Date.now() < deadline; r++) {
    const round = {};
    for (const name of order(ok, r)) {
      round[name] = await once(name, sinks, ws, app);
      await delay(50);
    }
    results.push(round);
    log(`  ${app === helloApp ? '' : app === DB_APP ? 'express+pg+ioredis ' : 'one-line script '}round ${r + 1}/${nRounds}: ${ok.map((n) => `${n} ${round[n].toFixed(0)}`).join(', ')}`);
  }
  const rows = [];
  for (const name of names) {
    const measureName = MEASURES.get(app);
    const g = goals[name];
    if (na[name] !== undefined) {
      rows.push(row('startup', measureName, name, null, 'ms', { goal: g && goal(g[0], NaN), note: 'n/a: ' + na[name] }));
      continue;
    }
    const value = median(results.map((x) => x[name]));
    const diff = name === 'untraced' ? null : medianDiff(results, name);
    const fl = name === 'tracehook-disabled' ? 'import-floor' : floorOf(name);
    rows.push(
      row('startup', measureName, name, value, 'ms', {
        vs: diff === null ? null : { kind: 'diff', value: diff },
        floor: vsFloor(results, name, fl, 'diff'),
        goal: g && goal(g[0], g[2] ? medianDiff(results, name, g[2]) : diff, g[1]),
        note: `${results.length} rounds${intervalNote(results, name, g)}${floorNote(results, name)}`,
      }),
    );
  }
  return rows;
}

await mainIfRun(import.meta.url, run);
