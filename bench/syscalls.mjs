// Syscalls: what the hello-world server does per request, counted rather than timed (this machine is shared):
// write syscalls and bytes written (/proc/<pid>/io), main-thread CPU (schedstat, ns) and, with --strace, a
// `strace -c -f` summary of every syscall per request. Same autocannon load per variant (a fixed request count).
// Usage: node bench/syscalls.mjs [--variants untraced,tracehook-files] [--requests n] [--strace] [--pin]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startNode, stop, lineWaiter, delay } from './lib/proc.mjs';
import { command, helloApp, partition, workspace } from './lib/variants.mjs';
import { pinSelf, serverCpuList } from './lib/pin.mjs';
import { processIo, threadSched } from './lib/cpu.mjs';
import { killAllOnExit, log } from './lib/report.mjs';

/** autocannon sending exactly `amount` requests over `connections`. */
function loadAmount(port, amount, connections = 50) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `http://127.0.0.1:${port}/`, connections, amount, timeout: 10 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

async function measure(name, { requests, strace, pin }) {
  const ws = workspace();
  const { args, env } = command(name, helloApp, { spansDir: ws.spansDir() });
  const lines = lineWaiter();
  const child = startNode(args, { env, onLine: lines.onLine, cpus: pin ? serverCpuList() : undefined });
  let tracer;
  const out = join(mkdtempSync(join(tmpdir(), 'tracehook-strace-')), 'summary');
  try {
    const { match } = await lines.wait(child, /^PORT=(\d+)/, 20_000);
    const port = Number(match[1]);
    await loadAmount(port, Math.min(requests, 5000)); // warm-up
    if (strace) {
      tracer = spawn('strace', ['-c', '-f', '-o', out, '-p', String(child.pid)], { stdio: 'ignore' });
      await delay(500); // attached to every thread
    }
    const io0 = processIo(child.pid);
    const cpu0 = threadSched(child.pid);
    const res = await loadAmount(port, requests);
    const cpu1 = threadSched(child.pid);
    const io1 = processIo(child.pid);
    let summary = '';
    if (tracer) {
      const exited = once(tracer, 'exit');
      tracer.kill('SIGINT');
      await exited;
      summary = readFileSync(out, 'utf8');
    }
    const n = res.requests.total;
    return {
      name,
      requests: n,
      rps: n / res.duration,
      writesPerReq: (io1.syscw - io0.syscw) / n,
      readsPerReq: (io1.syscr - io0.syscr) / n,
      bytesPerReq: (io1.wchar - io0.wchar) / n,
      mainCpuUsPerReq: (cpu1.runNs - cpu0.runNs) / 1000 / n,
      mainWaitUsPerReq: (cpu1.waitNs - cpu0.waitNs) / 1000 / n,
      preemptedPerReq: (cpu1.nonvoluntary - cpu0.nonvoluntary) / n,
      blockedPerReq: (cpu1.voluntary - cpu0.voluntary) / n,
      summary: perRequest(summary, n),
    };
  } finally {
    tracer?.kill('SIGKILL');
    await stop(child);
    ws.cleanup();
    rmSync(join(out, '..'), { recursive: true, force: true });
  }
}

/** strace -c's table as { syscall: calls per request }. */
function perRequest(summary, n) {
  const calls = {};
  for (const line of summary.split('\n')) {
    const f = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors,] syscall
    if (f.length >= 5 && /^\d/.test(f[0]) && /^[a-z_0-9]+$/.test(f.at(-1)) && f.at(-1) !== 'total') calls[f.at(-1)] = Number(f[3]) / n;
  }
  return calls;
}

export async function run({ variants, requests = 50_000, strace = false, pin = false } = {}) {
  const names = variants ?? ['untraced', 'tracehook-files'];
  const { ok } = await partition(names);
  if (pin) pinSelf();
  log(`syscalls: ${ok.join(', ')}, ${requests} requests each${strace ? ', under strace -c -f' : ''}${pin ? ', pinned' : ''}`);
  const results = [];
  for (const name of ok) results.push(await measure(name, { requests, strace, pin }));
  const md = [];
  md.push(`Hello-world server, ${requests} requests at 50 connections${pin ? ', server pinned to its own core' : ''}; /proc/<pid>/io and the main thread's schedstat.`);
  md.push('');
  md.push(
    '| variant | req/s | write syscalls / req | read syscalls / req | bytes written / req | main-thread CPU µs / req | main thread waiting for a CPU µs / req | main thread preempted / 1000 req | main thread blocked / 1000 req |',
  );
  md.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    md.push(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.writesPerReq.toFixed(3)} | ${r.readsPerReq.toFixed(3)} | ${r.bytesPerReq.toFixed(0)} | ${r.mainCpuUsPerReq.toFixed(1)} | ${r.mainWaitUsPerReq.toFixed(1)} | ${(r.preemptedPerReq * 1000).toFixed(1)} | ${(r.blockedPerReq * 1000).toFixed(1)} |`,
    );
  }
  if (strace) {
    const sys = [...new Set(results.flatMap((r) => Object.keys(r.summary)))];
    sys.sort((a, b) => (results.at(-1).summary[b] ?? 0) - (results.at(-1).summary[a] ?? 0));
    md.push('');
    md.push(`strace -c -f, calls per request (every thread):`);
    md.push('');
    md.push(`| syscall | ${results.map((r) => r.name).join(' | ')} |`);
    md.push(`|---|${results.map(() => '---').join('|')}|`);
    for (const s of sys.filter((s) => results.some((r) => (r.summary[s] ?? 0) >= 0.001))) {
      md.push(`| ${s} | ${results.map((r) => (r.summary[s] ?? 0).toFixed(3)).join(' | ')} |`);
    }
  }
  return md.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (flag) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  killAllOnExit(async () => {
    console.log(
      await run({
        variants: opt('--variants')?.split(','),
        requests: opt('--requests') ? Number(opt('--requests')) : undefined,
        strace: argv.includes('--strace'),
        pin: argv.includes('--pin'),
      }),
    );
  });
}
