// Exit: time from the app's last line (`LAST` read on its stdout) to the process's exit, with the trace backend
// refusing connections and with one that accepts and never answers. The app made 20 traced requests and returned
// from main; untraced exits at once. A run still alive after CAP_MS is killed and counted as CAP_MS.
// Usage: node bench/exit.mjs [--quick] [--rounds n] [--variants a,b]
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { startSink } from './lib/otlp-sink.mjs';
import { command, partition, pick, workspace, VARIANTS } from './lib/variants.mjs';
import { median, order } from './lib/stats.mjs';
import { row, goal, mainIfRun, log } from './lib/report.mjs';

const NAMES = ['untraced', 'tracehook-files', 'tracehook-otlp', 'otel', 'dd-trace'];
const MODES = ['refuse', 'hang'];
const GOAL_MS = 500;
const CAP_MS = 20_000;
const QUICK_CAP_MS = 5_000; // --quick: enough to see which side of the goal a variant is on
const app = fileURLToPath(new URL('./apps/exit-app.cjs', import.meta.url));

async function exitTime(name, port, ws, capMs) {
  const { args, env } = command(name, app, { port, spansDir: ws.spansDir() });
  const lines = lineWaiter();
  const child = startNode(args, { env, onLine: lines.onLine });
  const exited = once(child, 'exit').then(() => performance.now());
  try {
    const { t } = await lines.wait(child, /^LAST$/, 20_000);
    const timer = delay(capMs).then(() => null);
    const end = await Promise.race([exited, timer]);
    // 'exit' can be seen before the pipe delivers the line: then the process was gone within pipe latency (0).
    return end === null ? { ms: capMs, capped: true } : { ms: Math.max(0, end - t), capped: false };
  } finally {
    await stop(child);
  }
}

/** The runs of one round: [variant, mode]; variants without a backend run once (mode null). */
function plan(names) {
  const runs = [];
  for (const name of names) {
    if (VARIANTS[name].backend) for (const mode of MODES) runs.push([name, mode]);
    else runs.push([name, null]);
  }
  return runs;
}

export async function run({ quick = false, rounds, variants } = {}) {
  const nRounds = rounds ?? (quick ? 1 : 5);
  const capMs = quick ? QUICK_CAP_MS : CAP_MS;
  log(`exit: ${nRounds} rounds, backend refusing / hanging, cap ${capMs} ms`);
  const names = pick(NAMES, variants);
  const { ok, na } = await partition(names);
  const sinks = { refuse: await startSink('refuse'), hang: await startSink('hang') };
  const ws = workspace();
  const results = []; // { 'name/mode': ms }
  const capped = {};
  const deadline = Date.now() + (quick ? 90_000 : 360_000);
  try {
    const runs = plan(ok);
    for (let r = 0; r < nRounds && Date.now() < deadline; r++) {
      const round = {};
      for (const [name, mode] of order(runs, r)) {
        const key = `${name}/${mode}`;
        const res = await exitTime(name, mode ? sinks[mode].port : undefined, ws, capMs);
        round[key] = res.ms;
        if (res.capped) capped[key] = (capped[key] ?? 0) + 1;
        await delay(100);
      }
      results.push(round);
      log(
        `  round ${r + 1}/${nRounds}: ${Object.entries(round)
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(', ')}`,
      );
    }
  } finally {
    await Promise.all(Object.values(sinks).map((s) => s.close()));
    ws.cleanup();
  }
  const rows = [];
  for (const name of names) {
    const modes = VARIANTS[name].backend ? MODES : [null];
    for (const mode of modes) {
      const key = `${name}/${mode}`;
      const measure = mode === 'refuse' ? 'exit after last line, backend refusing' : mode === 'hang' ? 'exit after last line, backend hanging' : 'exit after last line';
      const g = name === 'tracehook-otlp' ? `≤ ${GOAL_MS} ms` : undefined;
      if (na[name] !== undefined) {
        rows.push(row('exit', measure, name, null, 'ms', { goal: g && goal(g, NaN), note: 'n/a: ' + na[name] }));
        continue;
      }
      const value = median(results.map((x) => x[key]));
      const diff = name === 'untraced' ? null : median(results.map((x) => x[key] - x['untraced/null']));
      const notes = [`${results.length} rounds`];
      if (capped[key]) notes.push(`${capped[key]} killed at the ${capMs / 1000} s cap: a lower bound`);
      rows.push(row('exit', measure, name, value, 'ms', { vs: diff === null ? null : { kind: 'diff', value: diff }, goal: g && goal(g, value, (x) => x <= GOAL_MS), note: notes.join('; ') }));
    }
  }
  return rows;
}

await mainIfRun(import.meta.url, run);
