// Startup: time from spawn() to the first HTTP 200 of the hello-world server, per variant, rounds interleaved; then
// the same for an Express app that loads pg and ioredis (untraced and tracehook-files only), where instrumentations
// are loaded as the app loads their packages.
// Everything counts: node's own start, the preload, the app's imports, listen, the first request.
// The Express app's own start varies by ±100 ms from one spawn to the next on a 2-core machine (≈ 250 modules read and
// compiled), ten times the hello-world server's spread: it gets more rounds (40; --db-rounds). Even so, the median
// of its per-round differences is known only to ±10-20 ms here; each row's note gives its 95% interval.
// Usage: node bench/startup.mjs [--quick] [--rounds n] [--db-rounds n] [--variants a,b]
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { startSink } from './lib/otlp-sink.mjs';
import { fileURLToPath } from 'node:url';
import { command, helloApp, partition, pick, workspace, VARIANTS } from './lib/variants.mjs';
import { httpGet } from './lib/http.mjs';
import { MIN_INTERVAL_ROUNDS, median, medianDiff, medianDiffInterval, order } from './lib/stats.mjs';
import { row, goal, mainIfRun, log } from './lib/report.mjs';

const NAMES = ['untraced', 'tracehook-files', 'tracehook-disabled', 'import-floor', 'tracehook-otlp', 'otel', 'dd-trace'];
const GOALS = {
  'tracehook-files': ['≤ +50 ms', (d) => d <= 50],
  'tracehook-disabled': ['≤ +2 ms', (d) => d <= 2],
};
const TIMEOUT_MS = 20_000;
const DB_APP = fileURLToPath(new URL('./apps/express-pg-redis.cjs', import.meta.url));
const DB_NAMES = ['untraced', 'tracehook-files'];
const DB_ROUNDS = 40;
const MEASURES = new Map([
  [helloApp, 'spawn → first HTTP 200'],
  [DB_APP, 'spawn → first HTTP 200, express + pg + ioredis app'],
]);

/** One spawn → first 200, in ms. */
async function once(name, sinks, ws, app = helloApp) {
  const lines = lineWaiter();
  const port = VARIANTS[name].backend ? sinks[VARIANTS[name].backend].port : undefined;
  const { args, env } = command(name, app, { port, spansDir: ws.spansDir() });
  const t0 = performance.now();
  const child = startNode(args, { env, onLine: lines.onLine });
  try {
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
    rows.push(...(await measure(helloApp, names, ok, na, { nRounds, deadline, sinks, ws })));
    const dbNames = DB_NAMES.filter((n) => names.includes(n));
    if (dbNames.length > 1) rows.push(...(await measure(DB_APP, dbNames, ok.filter((n) => dbNames.includes(n)), na, { nRounds: nDbRounds, deadline: Date.now() + dbCapMs, sinks, ws })));
  } finally {
    await Promise.all(Object.values(sinks).map((s) => s.close()));
    ws.cleanup();
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
 * For a row with a goal: the 95% bootstrap interval of its "vs untraced" difference, and whether the goal's verdict
 * holds across it (a verdict the interval straddles is not decided by this run's rounds).
 */
function intervalNote(results, name, g) {
  if (!g) return '';
  const [low, high] = medianDiffInterval(results, name);
  if (low === -Infinity) return `; under ${MIN_INTERVAL_ROUNDS} rounds: no 95% interval, not decided`;
  if (!Number.isFinite(low)) return '';
  const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
  const decided = g[1](low) === g[1](high) ? 'decided' : 'not decided by these rounds';
  return `; 95% interval ${signed(low)} to ${signed(high)} ms, ${decided}`;
}

/** Interleaved rounds of `app` over the variants in `ok`; one row per name. */
async function measure(app, names, ok, na, { nRounds, deadline, sinks, ws }) {
  const results = [];
  for (let r = 0; r < nRounds && Date.now() < deadline; r++) {
    const round = {};
    for (const name of order(ok, r)) {
      round[name] = await once(name, sinks, ws, app);
      await delay(50);
    }
    results.push(round);
    log(`  ${app === helloApp ? '' : 'express+pg+ioredis '}round ${r + 1}/${nRounds}: ${ok.map((n) => `${n} ${round[n].toFixed(0)}`).join(', ')}`);
  }
  const rows = [];
  for (const name of names) {
    const measureName = MEASURES.get(app);
    const g = GOALS[name];
    if (na[name] !== undefined) {
      rows.push(row('startup', measureName, name, null, 'ms', { goal: g && goal(g[0], NaN), note: 'n/a: ' + na[name] }));
      continue;
    }
    const value = median(results.map((x) => x[name]));
    const diff = name === 'untraced' ? null : medianDiff(results, name);
    rows.push(
      row('startup', measureName, name, value, 'ms', {
        vs: diff === null ? null : { kind: 'diff', value: diff },
        goal: g && goal(g[0], diff, g[1]),
        note: `${results.length} rounds${intervalNote(results, name, g)}${floorNote(results, name)}`,
      }),
    );
  }
  return rows;
}

await mainIfRun(import.meta.url, run);
