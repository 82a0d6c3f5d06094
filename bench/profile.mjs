// Profile: the hello-world server under `node --cpu-prof` and autocannon load, per variant; prints where the CPU
// goes, per request, from the first request on (startup and module loading are left out), and the top self-time
// functions. Functions inside an esbuild bundle are attributed to the module they came from, using the bundle's
// source map (or its `// path/to/module.js` comments). Output is Markdown, ready for RESULTS.md.
// With --pin on the server runs on one core and autocannon on the other (lib/pin.mjs).
// Usage: node bench/profile.mjs [--quick] [--duration s] [--variants untraced,tracehook-files,tracehook-otlp] [--top n] [--pin on]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNode, stop, lineWaiter } from './lib/proc.mjs';
import { startSinkProcess } from './lib/otlp-sink.mjs';
import { command, helloApp, partition, workspace, VARIANTS } from './lib/variants.mjs';
import { parseFlags, killAllOnExit, log } from './lib/report.mjs';
import { load } from './throughput.mjs';
import { pinSelf, serverCpuList, unpinSelf } from './lib/pin.mjs';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

/** Runs the hello server of `name` under --cpu-prof with `durationS` of load; returns { profile, requests }. */
export async function profileVariant(name, { durationS = 5, pinned = false } = {}) {
  const v = VARIANTS[name];
  const sink = v.backend ? await startSinkProcess('accept', { any: v.backend === 'dd' }) : null;
  const ws = workspace();
  const profDir = mkdtempSync(join(tmpdir(), 'tracehook-prof-'));
  const { args, env } = command(name, helloApp, { port: sink?.port, spansDir: ws.spansDir() });
  const lines = lineWaiter();
  const child = startNode(['--cpu-prof', '--cpu-prof-dir', profDir, ...args], { env, onLine: lines.onLine, cpus: pinned ? serverCpuList() : undefined });
  if (pinned) pinSelf();
  try {
    const { match } = await lines.wait(child, /^PORT=(\d+)/, 20_000);
    const before = threadTimes(child.pid);
    const res = await load(Number(match[1]), durationS);
    const after = threadTimes(child.pid);
    await stop(child, 'SIGTERM', 15_000); // the app exits on SIGTERM, which writes the profile
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${name}: no .cpuprofile written`);
    const cpu = {
      mainMs: after.mainMs - before.mainMs,
      mainSysMs: after.mainSysMs - before.mainSysMs,
      otherMs: after.otherMs - before.otherMs,
      waitMs: after.waitMs - before.waitMs,
    };
    return { profile: JSON.parse(readFileSync(join(profDir, file), 'utf8')), requests: res.requests.total, cpu };
  } finally {
    if (pinned) unpinSelf();
    await stop(child);
    await sink?.close();
    ws.cleanup();
    rmSync(profDir, { recursive: true, force: true });
  }
}

/**
 * CPU time (Linux /proc) of a process's main thread and of its other threads (V8 GC and compiler helpers, libuv
 * pool, worker threads), and the time its main thread waited runnable for a CPU: the profiler samples wall time,
 * so on a busy 2-core machine a syscall frame also holds the time the thread sat descheduled in it.
 */
function threadTimes(pid) {
  const tick = 10; // ms per clock tick (USER_HZ 100)
  let mainMs = 0;
  let mainSysMs = 0;
  let otherMs = 0;
  let waitMs = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(f[11]) + Number(f[12])) * tick;
      if (Number(tid) === pid) {
        mainMs += ms;
        mainSysMs += Number(f[12]) * tick;
        waitMs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
      } else otherMs += ms;
    }
  } catch {
    return { mainMs: NaN, mainSysMs: NaN, otherMs: NaN, waitMs: NaN };
  }
  return { mainMs, mainSysMs, otherMs, waitMs };
}

/**
 * For a bundle file, the module a position came from: from the bundle's external source map (`<bundle>.map`, which
 * scripts/bundle.mjs writes for the minified preload bundle), else from esbuild's `// path` comments before each
 * module (a bundle that is not minified).
 */
const bundleIndex = new Map();
function sourceOf(url, line, column) {
  if (!url.startsWith('file://') || !/\.bundle\.[cm]?js$/.test(url)) return url;
  if (!bundleIndex.has(url)) bundleIndex.set(url, indexOf(fileURLToPath(url)));
  const index = bundleIndex.get(url);
  const bundle = url.slice(url.lastIndexOf('/') + 1);
  let found = null;
  if (index.map) {
    // Sources are relative to the bundle's folder: made relative to the repository as the comments are.
    const source = index.map.findEntry(line, column)?.originalSource;
    found = source ? posix.join(posix.relative(repoRoot, posix.dirname(fileURLToPath(url))), source) : null;
  } else {
    const marks = index.marks;
    let lo = 0;
    let hi = marks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= line) {
        found = marks[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
  }
  return found ? `${bundle}:${found}` : url;
}

function indexOf(file) {
  try {
    return { map: new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))) };
  } catch {
    /* no source map: the comments */
  }
  const marks = [];
  try {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((l, i) => {
        const m = /^\/\/ (\S+\.(?:[cm]?js|ts))$/.exec(l);
        if (m) marks.push([i, m[1]]);
      });
  } catch {
    /* file gone: keep the bundle url */
  }
  return { marks };
}

function shortUrl(url) {
  return url.replace('file://' + repoRoot, '').replace(/^.*\/node_modules\//, 'node_modules/');
}

/** Coarse area of a frame: tracehook, an npm package, node core, the app, or a V8 pseudo-frame. */
function areaOf(functionName, src) {
  if (!src) {
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') return functionName;
    return '(native)';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src);
  if (pkg) return pkg[1];
  if (src.startsWith('node:')) return 'node core';
  if (/(^|\/|:)(dist|src)\/|register\.[cm]js$/.test(src)) return 'tracehook';
  if (src.includes('bench/apps/')) return 'app';
  return shortUrl(src);
}

/**
 * Self time by function and by area, from the first sample that runs the hello app's code after startup (the
 * listen callback or a request handler) to the end.
 */
export function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const isAppFrame = (n) => n.callFrame.url.endsWith('/bench/apps/hello.cjs') && n.callFrame.lineNumber > 0;
  const inApp = new Map();
  const reachesApp = (id) => {
    if (inApp.has(id)) return inApp.get(id);
    const n = byId.get(id);
    const r = isAppFrame(n) || (parent.has(id) && reachesApp(parent.get(id)));
    inApp.set(id, r);
    return r;
  };
  const { samples, timeDeltas } = profile;
  let start = samples.findIndex((id) => reachesApp(id));
  if (start < 0) start = 0;
  const selfUs = new Map();
  for (let i = start; i < samples.length; i++) {
    const dt = timeDeltas[i + 1] ?? 0;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + dt);
  }
  const fns = new Map();
  const areas = new Map();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber, columnNumber } = byId.get(id).callFrame;
    const src = sourceOf(url, lineNumber, columnNumber);
    const area = areaOf(functionName, src);
    total += us;
    if (area === '(idle)') idle += us;
    areas.set(area, (areas.get(area) ?? 0) + us);
    const key = `${functionName || '(anonymous)'}\u0000${src}`;
    const f = fns.get(key) ?? { name: functionName || '(anonymous)', src: shortUrl(src), line: lineNumber + 1, us: 0, area };
    f.us += us;
    fns.set(key, f);
  }
  const wallUs = timeDeltas.slice(start + 1).reduce((a, b) => a + b, 0);
  return {
    wallMs: wallUs / 1000,
    busyMs: (total - idle) / 1000,
    functions: [...fns.values()].filter((f) => f.area !== '(idle)').sort((a, b) => b.us - a.us),
    areas: new Map([...areas].filter(([a]) => a !== '(idle)').sort((a, b) => b[1] - a[1])),
  };
}

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

/** Profiles each variant and returns Markdown: per-request CPU, by area, and the top functions of the last variant. */
export async function run({ quick = false, duration, variants, top = 20, pin } = {}) {
  const pinned = pin === 'on';
  const durationS = duration ?? (quick ? 2 : 5);
  const names = variants ?? ['untraced', 'tracehook-files', 'tracehook-otlp'];
  const { ok, na } = await partition(names);
  log(`profile: ${ok.join(', ')} under --cpu-prof, ${durationS} s of load each`);
  const out = [];
  for (const name of ok) {
    const { profile, requests, cpu } = await profileVariant(name, { durationS, pinned });
    out.push({ name, requests, cpu, ...summarize(profile) });
  }
  const md = [];
  md.push(
    `Hello-world server${pinned ? ' pinned to one core, autocannon on the other' : ''}, autocannon -c 50 for ${durationS} s, \`node --cpu-prof\` (1 ms sampling); samples from the first request on.`,
  );
  md.push('');
  md.push('CPU µs per request from /proc (main thread; other threads: GC/compiler helpers, libuv pool, workers); profile');
  md.push('µs per request = main-thread samples not idle (wall time: includes time descheduled inside a frame).');
  md.push('');
  md.push('| variant | requests | req/s | main-thread CPU µs/req | of which kernel | other threads CPU µs/req | main thread waiting for a CPU, ms | profile non-idle µs/req |');
  md.push('|---|---|---|---|---|---|---|---|');
  for (const o of out) {
    const per = (ms) => f1((ms * 1000) / o.requests);
    md.push(
      `| ${o.name} | ${o.requests} | ${(o.requests / durationS).toFixed(0)} | ${per(o.cpu.mainMs)} | ${per(o.cpu.mainSysMs)} | ${per(o.cpu.otherMs)} | ${o.cpu.waitMs.toFixed(0)} | ${per(o.busyMs)} |`,
    );
  }
  for (const [name, why] of Object.entries(na)) md.push(`| ${name} | n/a: ${why} | | | | | | |`);
  md.push('');
  if (out.length) {
    const areaNames = [...new Set(out.flatMap((o) => [...o.areas.keys()]))];
    const per = (o, a) => (o.areas.get(a) ?? 0) / o.requests;
    areaNames.sort((a, b) => per(out.at(-1), b) - per(out.at(-1), a));
    const traced = out.slice(1);
    md.push(`Self time by area, µs per request${traced.length ? ` ("added": each traced variant minus ${out[0].name})` : ''}:`);
    md.push('');
    md.push(`| area | ${out.map((o) => o.name).join(' | ')} |${traced.map((o) => ` added, ${o.name} |`).join('')}`);
    md.push(`|---|${out.map(() => '---').join('|')}|${traced.map(() => '---|').join('')}`);
    for (const a of areaNames.slice(0, 16)) {
      const cells = out.map((o) => f1(per(o, a)));
      md.push(`| ${a} | ${cells.join(' | ')} |${traced.map((o) => ` ${f1(per(o, a) - per(out[0], a))} |`).join('')}`);
    }
    md.push('');
    for (const last of traced) {
      // What each traced variant adds, function by function: its µs/request minus the first variant's.
      const base = out[0];
      const key = (f) => `${f.name}\u0000${f.src}`;
      const baseUs = new Map(base.functions.map((f) => [key(f), f.us / base.requests]));
      const added = last.functions.map((f) => ({ ...f, added: f.us / last.requests - (baseUs.get(key(f)) ?? 0) })).sort((a, b) => b.added - a.added);
      md.push(`Top ${top} functions by self time added per request, ${last.name} minus ${base.name}:`);
      md.push('');
      md.push(`| # | added µs / req | ${base.name} µs / req | function | source |`);
      md.push('|---|---|---|---|---|');
      added.slice(0, top).forEach((f, i) => {
        md.push(`| ${i + 1} | ${f.added.toFixed(2)} | ${(baseUs.get(key(f)) ?? 0).toFixed(2)} | \`${f.name}\` | ${f.src ? `${f.src}:${f.line}` : ''} |`);
      });
      md.push('');
    }
    for (const o of out.slice(-1)) {
      md.push(`Top ${top} self-time functions, ${o.name} (${f1(o.busyMs)} ms busy):`);
      md.push('');
      md.push('| # | self ms | % busy | µs / req | function | source |');
      md.push('|---|---|---|---|---|---|');
      o.functions.slice(0, top).forEach((f, i) => {
        md.push(`| ${i + 1} | ${f1(f.us / 1000)} | ${f1((f.us / 1000 / o.busyMs) * 100)} | ${(f.us / o.requests).toFixed(2)} | \`${f.name}\` | ${f.src ? `${f.src}:${f.line}` : ''} |`);
      });
      md.push('');
    }
  }
  return md.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  let top = 20;
  const i = argv.indexOf('--top');
  if (i >= 0) {
    top = Number(argv[i + 1]);
    argv.splice(i, 2);
  }
  killAllOnExit(async () => {
    const flags = parseFlags(argv);
    console.log(await run({ quick: flags.quick, duration: flags.duration, variants: flags.variants, top, pin: flags.pin }));
  });
}
