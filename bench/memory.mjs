// Memory: RSS of the hello-world server during a long full-load run (autocannon -c 50) with the OTLP backend up
// (accepting) and down (refusing connections). A tracer that holds spans it cannot send grows here; the goal is
// peak RSS down ≤ peak RSS up + 64 MiB. RSS is read from /proc/<pid>/status every 500 ms.
// One run per variant and backend state (the runs are long); order: up, down per variant, variants interleaved.
// Usage: node bench/memory.mjs [--quick] [--duration s] [--variants a,b]
import { readFileSync } from 'node:fs';
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { startSinkProcess } from './lib/otlp-sink.mjs';
import { command, helloApp, partition, pick, workspace, VARIANTS } from './lib/variants.mjs';
import { row, goal, mainIfRun, log } from './lib/report.mjs';
import { load } from './throughput.mjs';

const NAMES = ['untraced', 'tracehook-otlp', 'otel'];
const GOAL_MIB = 64;
const MIB = 1024 * 1024;
const UNTRACED_MAX_S = 20;

function rssBytes(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function measure(name, sink, ws, durationS) {
  const { args, env } = command(name, helloApp, { port: sink?.port, spansDir: ws.spansDir() });
  const lines = lineWaiter();
  const child = startNode(args, { env, onLine: lines.onLine });
  const samples = [];
  let timer;
  try {
    const { match } = await lines.wait(child, /^PORT=(\d+)/, 20_000);
    timer = setInterval(() => samples.push(rssBytes(child.pid)), 500);
    const res = await load(Number(match[1]), durationS);
    samples.push(rssBytes(child.pid));
    if (child.exitCode !== null) throw new Error(`${name}: server exited during the run`);
    const finite = samples.filter(Number.isFinite);
    const dropLine = child
      .stderrText()
      .split('\n')
      .find((l) => /drop/i.test(l));
    return {
      peak: Math.max(...finite) / MIB,
      end: finite.at(-1) / MIB,
      // still growing at the end, or levelled off? RSS at the end minus RSS at the middle of the run
      secondHalf: (finite.at(-1) - finite[Math.floor(finite.length / 2)]) / MIB,
      rps: res.requests.total / res.duration,
      dropLine: dropLine?.trim().slice(0, 120),
    };
  } finally {
    clearInterval(timer);
    await stop(child);
  }
}

export async function run({ quick = false, duration, variants } = {}) {
  const durationS = duration ?? (quick ? 3 : 60);
  log(`memory: ${durationS} s of full load per run, OTLP backend up / down`);
  const names = pick(NAMES, variants);
  const { ok, na } = await partition(names);
  const sinks = { up: await startSinkProcess('accept'), down: await startSinkProcess('refuse') };
  const ws = workspace();
  const res = {};
  try {
    const runs = [];
    for (const state of ['up', 'down']) {
      for (const name of ok) if (VARIANTS[name].backend || state === 'up') runs.push([name, state]);
    }
    for (const [name, state] of runs) {
      const sink = VARIANTS[name].backend ? sinks[state] : null;
      // untraced has no backend to lose; its RSS levels off quickly, so its run is shorter (a reference only)
      const m = await measure(name, sink, ws, name === 'untraced' ? Math.min(durationS, UNTRACED_MAX_S) : durationS);
      m.durationS = name === 'untraced' ? Math.min(durationS, UNTRACED_MAX_S) : durationS;
      res[`${name}/${state}`] = m;
      log(`  ${name}, backend ${state}: peak ${m.peak.toFixed(0)} MiB, end ${m.end.toFixed(0)} MiB, ${m.rps.toFixed(0)} req/s`);
      await delay(300);
    }
  } finally {
    await Promise.all(Object.values(sinks).map((s) => s.close()));
    ws.cleanup();
  }
  const rows = [];
  const base = res['untraced/up']?.peak;
  for (const name of names) {
    const g = name === 'tracehook-otlp' ? `≤ +${GOAL_MIB} MiB` : undefined;
    if (na[name] !== undefined) {
      rows.push(row('memory', 'peak RSS, backend down − up', name, null, 'MiB', { goal: g && goal(g, NaN), note: 'n/a: ' + na[name] }));
      continue;
    }
    const up = res[`${name}/up`];
    const down = res[`${name}/down`];
    const note = (m) => `${m.durationS} s at ${m.rps.toFixed(0)} req/s; end ${m.end.toFixed(0)} MiB, ${m.secondHalf >= 0 ? '+' : ''}${m.secondHalf.toFixed(0)} MiB over the 2nd half`;
    rows.push(
      row('memory', VARIANTS[name].backend ? 'peak RSS, backend up' : 'peak RSS', name, up.peak, 'MiB', {
        vs: name === 'untraced' || !Number.isFinite(base) ? null : { kind: 'diff', value: up.peak - base },
        note: note(up),
      }),
    );
    if (!down) continue;
    rows.push(
      row('memory', 'peak RSS, backend down', name, down.peak, 'MiB', {
        vs: Number.isFinite(base) ? { kind: 'diff', value: down.peak - base } : null,
        note: [note(down), down.dropLine].filter(Boolean).join('; '),
      }),
    );
    const delta = down.peak - up.peak;
    rows.push(row('memory', 'peak RSS, backend down − up', name, delta, 'MiB', { goal: g && goal(g, delta, (x) => x <= GOAL_MIB), note: '1 run each' }));
  }
  return rows;
}

await mainIfRun(import.meta.url, run);
