// Worker crossings: postMessage ping-pong round trips/s (main thread ↔ one worker, one message in flight) and
// piscina no-op tasks/s (2 threads, 32 in flight), each measured inside a traced HTTP request of the app, with
// and without the preload. The preload also runs in every worker thread. Ratios against untraced per round. Also the
// app's main-thread CPU per round trip / task (from /proc, measured by the app), and from it the main-thread CPU
// per messaging span: (tracehook − untraced in the same round) / the PRODUCER/CONSUMER spans the main thread makes
// per op (ping-pong: the send and the reply's process; piscina: the send).
// Usage: node bench/workers.mjs [--quick] [--rounds n] [--duration s] [--variants a,b]
import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { startSinkProcess } from './lib/otlp-sink.mjs';
import { command, partition, pick, workspace, VARIANTS } from './lib/variants.mjs';
import { median, medianDiff, medianRatio, order } from './lib/stats.mjs';
import { row, goal, mainIfRun, log } from './lib/report.mjs';

const NAMES = ['untraced', 'tracehook-files', 'tracehook-otlp', 'otel', 'dd-trace'];
/** Throughput goals (× untraced): per app in a traced request, and outside any trace. */
const GOALS = { pingpong: 0.75, piscina: 0.85, 'pingpong-bare': 0.95, 'piscina-bare': 0.95 };
/** Main-thread CPU added per messaging span, µs. */
const SPAN_CPU_GOAL_US = 2;
const pingpong = fileURLToPath(new URL('./apps/pingpong.cjs', import.meta.url));
const piscina = fileURLToPath(new URL('./apps/piscina.cjs', import.meta.url));
// In a traced request: every message/task is sent from a server span's context (the case the goal is about).
// Outside any trace: the same loop with nothing active, for the wrappers' cost alone; untraced and tracehook only.
const APPS = {
  pingpong: { file: pingpong, measure: 'postMessage round trips/s, in a traced request', unit: '/s', mainSpans: 2, op: 'round trip' },
  piscina: { file: piscina, measure: 'piscina no-op tasks/s, in a traced request', unit: '/s', mainSpans: 1, op: 'task' },
  'pingpong-bare': { file: pingpong, env: { BENCH_CONTEXT: 'none' }, only: ['untraced', 'tracehook-files'], measure: 'postMessage round trips/s, outside any trace', unit: '/s' },
  'piscina-bare': { file: piscina, env: { BENCH_CONTEXT: 'none' }, only: ['untraced', 'tracehook-files'], measure: 'piscina no-op tasks/s, outside any trace', unit: '/s' },
};
const appVariants = (app, names) => (APPS[app].only ? names.filter((n) => APPS[app].only.includes(n)) : names);

async function measure(name, app, sinks, ws, durationMs) {
  const v = VARIANTS[name];
  const spansDir = ws.spansDir();
  const { args, env } = command(name, APPS[app].file, {
    port: v.backend ? sinks[v.backend].port : undefined,
    spansDir,
    extraEnv: { BENCH_DURATION_MS: String(durationMs), ...APPS[app].env },
  });
  const lines = lineWaiter();
  const child = startNode(args, { env, onLine: lines.onLine });
  try {
    const { match } = await lines.wait(child, /^RESULT (.*)$/, durationMs + 30_000);
    const result = JSON.parse(match[1]);
    if (!Number.isFinite(result.perSec)) throw new Error(`${name} ${app}: ${match[1].slice(0, 300)}`);
    await stop(child, 'SIGTERM', 3000); // let the preload write what it has before counting spans
    return { perSec: result.perSec, mainUsPerOp: result.mainUsPerOp ?? NaN, messagingSpansPerOp: v.tracehook && !v.backend ? (await messagingSpans(spansDir)) / result.ops : NaN };
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
  const durationMs = (duration ?? (quick ? 0.5 : 2)) * 1000;
  log(`workers: ${nRounds} rounds × ${durationMs} ms per app`);
  const names = pick(NAMES, variants);
  const { ok, na } = await partition(names);
  if (!ok.includes('untraced')) throw new Error('workers: the untraced baseline cannot run');
  const sinks = { otlp: await startSinkProcess('accept'), dd: await startSinkProcess('accept', { any: true }) };
  const ws = workspace();
  const results = Object.fromEntries(Object.keys(APPS).map((app) => [app, []]));
  const cpu = Object.fromEntries(Object.keys(APPS).map((app) => [app, []]));
  const spansPerOp = {};
  const deadline = Date.now() + (quick ? 60_000 : 300_000);
  try {
    for (let r = 0; r < nRounds && Date.now() < deadline; r++) {
      for (const app of Object.keys(APPS)) {
        const round = {};
        const cpuRound = {};
        for (const name of order(appVariants(app, ok), r)) {
          const m = await measure(name, app, sinks, ws, durationMs);
          round[name] = m.perSec;
          cpuRound[name] = m.mainUsPerOp;
          if (Number.isFinite(m.messagingSpansPerOp)) (spansPerOp[`${app}/${name}`] ??= []).push(m.messagingSpansPerOp);
          await delay(100);
        }
        results[app].push(round);
        cpu[app].push(cpuRound);
        log(`  round ${r + 1}/${nRounds} ${app}: ${appVariants(app, ok).map((n) => `${n} ${round[n].toFixed(0)}`).join(', ')}`);
      }
    }
  } finally {
    await Promise.all(Object.values(sinks).map((s) => s.close()));
    ws.cleanup();
  }
  const rows = [];
  for (const app of Object.keys(APPS)) {
    const { measure: label, unit } = APPS[app];
    for (const name of appVariants(app, names)) {
      const goalX = VARIANTS[name].tracehook && (!APPS[app].only || name === 'tracehook-files') ? GOALS[app] : undefined;
      const g = goalX && `≥ ×${goalX}`;
      if (na[name] !== undefined) {
        rows.push(row('workers', label, name, null, unit, { goal: g && goal(g, NaN), note: 'n/a: ' + na[name] }));
        continue;
      }
      const rs = results[app];
      const ratio = name === 'untraced' ? null : medianRatio(rs, name);
      rows.push(
        row('workers', label, name, median(rs.map((x) => x[name])), unit, {
          vs: ratio === null ? null : { kind: 'ratio', value: ratio },
          goal: g && goal(g, ratio, (x) => x >= goalX, !APPS[app].env && spansPerOp[`${app}/${name}`] && median(spansPerOp[`${app}/${name}`]) === 0 ? 'crossing not traced' : undefined),
          note: [`${rs.length} rounds × ${durationMs / 1000} s`, spanNote(spansPerOp[`${app}/${name}`], APPS[app].env)].filter(Boolean).join('; '),
        }),
      );
    }
    if (APPS[app].mainSpans) rows.push(...cpuRows(app, names, na, cpu[app]));
  }
  return rows;
}

/** Main-thread CPU per op for each variant, and per messaging span for tracehook's. */
function cpuRows(app, names, na, rounds) {
  const { op, mainSpans } = APPS[app];
  const rows = [];
  for (const name of names) {
    if (na[name] !== undefined || !rounds.length) continue;
    const base = name === 'untraced';
    const d = base ? null : medianDiff(rounds, name);
    rows.push(row('workers', `main-thread CPU per ${op}, in a traced request`, name, median(rounds.map((x) => x[name])), 'µs', { vs: base ? null : { kind: 'diff', value: d }, note: '/proc schedstat, measured in the app' }));
    if (!VARIANTS[name].tracehook) continue;
    const perSpan = d / mainSpans;
    rows.push(
      row('workers', `main-thread CPU per messaging span (${app})`, name, perSpan, 'µs', {
        goal: goal(`≤ ${SPAN_CPU_GOAL_US} µs`, perSpan, (x) => x <= SPAN_CPU_GOAL_US),
        note: `added CPU per ${op} / ${mainSpans} main-thread span${mainSpans > 1 ? 's' : ''} per ${op}, export included`,
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
