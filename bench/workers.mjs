// Worker crossings: postMessage ping-pong round trips/s (main thread ↔ one worker, one message in flight) and
// piscina no-op tasks/s (2 threads, 32 in flight), each measured inside a traced HTTP request of the app, with
// and without the preload. The preload also runs in every worker thread. Ratios against untraced per round.
// Each child measures twice (apps/in-request.cjs): after a 300 ms warm-up (JIT compilation of the workers still in
// the window: the older rows) and in steady state, once the load has run 3 s (the rows issue 30's goals are read
// on). Also the app's main-thread CPU per round trip / task (from /proc, measured by the app), and from it the
// main-thread CPU per messaging span: (tracehook − untraced in the same round) / the PRODUCER/CONSUMER spans the
// main thread makes per op (ping-pong: the send and the reply's process; piscina: the send), and what export adds
// to it (span files − no exporter). Ping-pong also gives the share of round trips slower than 3× the median.
// The floor prototype (lib/floor-preload.cjs) runs beside them, so every traced row prints its distance to the floor.
// Usage: node bench/workers.mjs [--quick] [--rounds n] [--duration s] [--variants a,b]
import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { startSinkProcess } from './lib/otlp-sink.mjs';
import { command, floorOf, partition, pick, workspace, VARIANTS } from './lib/variants.mjs';
import { median, medianDiff, medianRatio, order } from './lib/stats.mjs';
import { row, goal, mainIfRun, log, vsFloor } from './lib/report.mjs';
import { exportCostRows } from './lib/export-cost.mjs';

const FLOORS = ['floor-context', 'floor-records', 'floor-export'];
const NAMES = ['untraced', 'tracehook-files', 'tracehook-otlp', 'tracehook-nomsg', 'tracehook-noexport', ...FLOORS, 'otel', 'dd-trace'];
/** --quick: no third-party tracers and no OTLP (the smoke run of every row of ours; OTLP is in the others). */
const QUICK_NAMES = NAMES.filter((n) => n !== 'otel' && n !== 'dd-trace' && n !== 'tracehook-otlp');
/**
 * Throughput goals (× untraced, steady state; issue 30): with messaging spans (span files and OTLP), with
 * TRACEHOOK_MESSAGING_SPANS=false, and outside any trace (issue 5's, kept: issue 30 says nothing of it).
 */
const GOALS = {
  pingpong: { spans: 0.6, nomsg: 0.9 },
  piscina: { spans: 0.7, nomsg: 0.9 },
  'pingpong-bare': { spans: 0.95 },
  'piscina-bare': { spans: 0.95 },
};
/** CPU of the sending or receiving thread per messaging span, export included, µs (export's share: lib/export-cost.mjs). */
const SPAN_CPU_GOAL_US = 3;
/** Steady state: measured once the load has run this long (≥ 3 s, issue 30), ms; --quick: a smoke value. */
const STEADY_AFTER_MS = 3000;
const pingpong = fileURLToPath(new URL('./apps/pingpong.cjs', import.meta.url));
const piscina = fileURLToPath(new URL('./apps/piscina.cjs', import.meta.url));
// In a traced request: every message/task is sent from a server span's context (the case the goal is about).
// Outside any trace: the same loop with nothing active, for the wrappers' cost alone; untraced, tracehook, floor.
const BARE = ['untraced', 'tracehook-files', 'floor-context'];
const APPS = {
  pingpong: { file: pingpong, measure: 'postMessage round trips/s, in a traced request', unit: '/s', mainSpans: 2, op: 'round trip' },
  piscina: { file: piscina, measure: 'piscina no-op tasks/s, in a traced request', unit: '/s', mainSpans: 1, op: 'task' },
  'pingpong-bare': { file: pingpong, env: { BENCH_CONTEXT: 'none' }, only: BARE, measure: 'postMessage round trips/s, outside any trace', unit: '/s' },
  'piscina-bare': { file: piscina, env: { BENCH_CONTEXT: 'none' }, only: BARE, measure: 'piscina no-op tasks/s, outside any trace', unit: '/s' },
};
const PHASES = ['warm', 'steady'];

const appVariants = (app, names) => (APPS[app].only ? names.filter((n) => APPS[app].only.includes(n)) : names);

async function measure(name, app, sinks, ws, { durationMs, steadyAfterMs, warmupMs }) {
  const v = VARIANTS[name];
  const spansDir = ws.spansDir();
  const { args, env } = command(name, APPS[app].file, {
    port: v.backend ? sinks[v.backend].port : undefined,
    spansDir,
    extraEnv: { BENCH_DURATION_MS: String(durationMs), BENCH_WARMUP_MS: String(warmupMs), BENCH_STEADY_WARMUP_MS: String(steadyAfterMs), ...APPS[app].env },
  });
  const lines = lineWaiter();
  const child = startNode(args, { env, onLine: lines.onLine });
  try {
    const { match } = await lines.wait(child, /^RESULT (.*)$/, steadyAfterMs + durationMs + 30_000);
    const result = JSON.parse(match[1]);
    if (!Number.isFinite(result.perSec) || !Number.isFinite(result.steady?.perSec)) throw new Error(`${name} ${app}: ${match[1].slice(0, 300)}`);
    await stop(child, 'SIGTERM', 3000); // let the preload write what it has before counting spans
    // The floor's export level writes the same OTLP-like `"kind":4|5` records: it must trace the crossing too.
    const counted = (v.tracehook && !v.backend && name !== 'tracehook-noexport') || v.floor === 'export';
    return {
      warm: { perSec: result.perSec, mainUsPerOp: result.mainUsPerOp ?? NaN },
      steady: { perSec: result.steady.perSec, mainUsPerOp: result.steady.mainUsPerOp ?? NaN },
      slowShare: result.steady.slowShare ?? NaN,
      messagingSpansPerOp: counted ? (await messagingSpans(spansDir)) / result.ops : NaN,
    };
  } finally {
    await stop(child);
  }
}

/** PRODUCER (4) and CONSUMER (5) spans in the OTLP/JSON span files of a run: whether the crossing is traced at all. */
async function messagingSpans(dir) {
  let n = 0;
  for (const f of readdirSync(dir)) {
    const rl = createInterface({ input: createReadStream(join(dir, f)), crlfDelay: Infinity });
    for await (const line of rl) n += (line.match(/"kind":\s*[45]\b/g) ?? []).length;
  }
  return n;
}

export async function run({ quick = false, rounds, duration, variants } = {}) {
  const nRounds = rounds ?? (quick ? 1 : 4);
  const durationMs = (duration ?? (quick ? 0.3 : 2)) * 1000;
  const warmupMs = quick ? 100 : 300;
  const steadyAfterMs = quick ? 800 : STEADY_AFTER_MS;
  log(`workers: ${nRounds} rounds × ${durationMs} ms per app, after a ${warmupMs} ms warm-up and again after ${steadyAfterMs} ms of load`);
  const names = pick(quick && !variants ? QUICK_NAMES : NAMES, variants);
  const { ok, na } = await partition(names);
  if (!ok.includes('untraced')) throw new Error('workers: the untraced baseline cannot run');
  const sinks = { otlp: await startSinkProcess('accept'), dd: await startSinkProcess('accept', { any: true }) };
  const ws = workspace();
  const apps = Object.keys(APPS);
  const results = Object.fromEntries(apps.map((app) => [app, { warm: [], steady: [] }]));
  const cpu = Object.fromEntries(apps.map((app) => [app, { warm: [], steady: [] }]));
  const tail = Object.fromEntries(apps.map((app) => [app, []]));
  const spansPerOp = {};
  const deadline = Date.now() + (quick ? 60_000 : 900_000);
  try {
    for (let r = 0; r < nRounds && Date.now() < deadline; r++) {
      for (const app of apps) {
        const round = { warm: {}, steady: {} };
        const cpuRound = { warm: {}, steady: {} };
        const tailRound = {};
        for (const name of order(appVariants(app, ok), r)) {
          const m = await measure(name, app, sinks, ws, { durationMs, steadyAfterMs, warmupMs });
          for (const phase of PHASES) {
            round[phase][name] = m[phase].perSec;
            cpuRound[phase][name] = m[phase].mainUsPerOp;
          }
          tailRound[name] = m.slowShare;
          if (Number.isFinite(m.messagingSpansPerOp)) (spansPerOp[`${app}/${name}`] ??= []).push(m.messagingSpansPerOp);
          await delay(100);
        }
        for (const phase of PHASES) {
          results[app][phase].push(round[phase]);
          cpu[app][phase].push(cpuRound[phase]);
        }
        tail[app].push(tailRound);
        log(
          `  round ${r + 1}/${nRounds} ${app} (warm-up / steady): ${appVariants(app, ok)
            .map((n) => `${n} ${round.warm[n].toFixed(0)} / ${round.steady[n].toFixed(0)}`)
            .join(', ')}`,
        );
      }
    }
  } finally {
    await Promise.all(Object.values(sinks).map((s) => s.close()));
    ws.cleanup();
  }
  const rows = [];
  const window = (phase) => (phase === 'warm' ? `${warmupMs} ms warm-up` : `steady, after ${steadyAfterMs / 1000} s`);
  for (const app of apps) {
    for (const phase of PHASES) rows.push(...rateRows(app, names, na, results[app][phase], { phase, window: window(phase), durationMs, spansPerOp }));
    if (APPS[app].mainSpans) for (const phase of PHASES) rows.push(...cpuRows(app, names, na, cpu[app][phase], { phase, window: window(phase) }));
    if (APPS[app].op === 'round trip') rows.push(...tailRows(app, names, na, tail[app], window('steady')));
  }
  return rows;
}

/** The goal of a throughput row, if any: steady state only (issue 30's goals are read there). */
function rateGoal(app, name, phase) {
  if (phase !== 'steady' || !VARIANTS[name].tracehook) return undefined;
  if (APPS[app].only) return name === 'tracehook-files' ? GOALS[app].spans : undefined;
  if (name === 'tracehook-nomsg') return GOALS[app].nomsg;
  return name === 'tracehook-files' || name === 'tracehook-otlp' ? GOALS[app].spans : undefined;
}

/** Ops/s rows of one app and window, with the ratio against untraced and against the floor. */
function rateRows(app, names, na, rs, { phase, window, durationMs, spansPerOp }) {
  const { measure: label, unit } = APPS[app];
  const rows = [];
  for (const name of appVariants(app, names)) {
    const goalX = rateGoal(app, name, phase);
    const g = goalX && `≥ ×${goalX}`;
    const measureName = `${label}, ${window}`;
    if (na[name] !== undefined) {
      rows.push(row('workers', measureName, name, null, unit, { goal: g && goal(g, NaN), note: 'n/a: ' + na[name] }));
      continue;
    }
    const ratio = name === 'untraced' ? null : medianRatio(rs, name);
    const expectNone = Boolean(APPS[app].env) || name === 'tracehook-nomsg';
    const perOp = spansPerOp[`${app}/${name}`];
    rows.push(
      row('workers', measureName, name, median(rs.map((x) => x[name])), unit, {
        vs: ratio === null ? null : { kind: 'ratio', value: ratio },
        floor: vsFloor(rs, name, floorOf(name, { spans: !APPS[app].env })),
        goal: g && goal(g, ratio, (x) => x >= goalX, !expectNone && perOp && median(perOp) === 0 ? 'crossing not traced' : undefined),
        note: [`${rs.length} rounds × ${durationMs / 1000} s`, phase === 'steady' ? spanNote(perOp, expectNone) : ''].filter(Boolean).join('; '),
      }),
    );
  }
  return rows;
}

/**
 * Main-thread CPU per op for each variant; per messaging span for tracehook's and the floor's with spans; and
 * what export adds per span (span files − no exporter, steady state).
 */
function cpuRows(app, names, na, rounds, { phase, window }) {
  const { op, mainSpans } = APPS[app];
  const rows = [];
  const steady = phase === 'steady';
  for (const name of names) {
    if (na[name] !== undefined || !rounds.length) continue;
    const base = name === 'untraced';
    const d = base ? null : medianDiff(rounds, name);
    rows.push(
      row('workers', `main-thread CPU per ${op}, in a traced request, ${window}`, name, median(rounds.map((x) => x[name])), 'µs', {
        vs: base ? null : { kind: 'diff', value: d },
        floor: vsFloor(rounds, name, floorOf(name), 'diff'),
        note: '/proc schedstat, measured in the app',
      }),
    );
    const spans = (VARIANTS[name].tracehook && name !== 'tracehook-nomsg') || name === 'floor-records' || name === 'floor-export';
    if (!spans) continue;
    const perSpan = d / mainSpans;
    const fl = floorOf(name);
    const perSpanRounds = rounds.map((x) => ({ [name]: (x[name] - x.untraced) / mainSpans, ...(fl ? { [fl]: (x[fl] - x.untraced) / mainSpans } : {}) }));
    // The goal counts export in: not for the no-exporter variant (its row is the part before export).
    const g = steady && VARIANTS[name].tracehook && name !== 'tracehook-noexport' ? `≤ ${SPAN_CPU_GOAL_US} µs` : undefined;
    rows.push(
      row('workers', `main-thread CPU per messaging span (${app}), ${window}`, name, perSpan, 'µs', {
        floor: vsFloor(perSpanRounds, name, fl, 'diff'),
        goal: g && goal(g, perSpan, (x) => x <= SPAN_CPU_GOAL_US),
        note: `added CPU per ${op} / ${mainSpans} main-thread span${mainSpans > 1 ? 's' : ''} per ${op}, export included`,
      }),
    );
  }
  if (steady)
    rows.push(
      ...exportCostRows('workers', `main-thread CPU per messaging span for export (${app}), ${window}`, rounds, {
        names,
        na,
        spansPerOp: mainSpans,
        note: `per ${op} / ${mainSpans}: what export adds on the thread the span ended on`,
      }),
    );
  return rows;
}

/** Ping-pong's tail: the share of round trips slower than 3× the median (in the app's steady window), in %. */
function tailRows(app, names, na, rounds, window) {
  const rows = [];
  const pct = rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v * 100])));
  for (const name of appVariants(app, names)) {
    if (na[name] !== undefined || !pct.length) continue;
    const base = name === 'untraced';
    const d = base ? null : medianDiff(pct, name);
    const g = VARIANTS[name].tracehook && name !== 'tracehook-noexport' ? "≤ untraced's" : undefined;
    rows.push(
      row('workers', `round trips slower than 3× the median, in a traced request, ${window}`, name, median(pct.map((x) => x[name])), '%', {
        vs: base ? null : { kind: 'diff', value: d },
        floor: vsFloor(pct, name, floorOf(name), 'diff'),
        goal: g && goal(g, d, (x) => x <= 0),
        note: "share of the window's round trips, each timed in the app",
      }),
    );
  }
  return rows;
}

function spanNote(perOp, bare) {
  if (!perOp) return '';
  const m = median(perOp);
  if (m === 0) return bare ? 'no producer/consumer spans (none expected)' : 'no producer/consumer spans: crossing not traced';
  return `${m.toFixed(1)} producer/consumer spans per op`;
}

await mainIfRun(import.meta.url, run);
