// Child processes for the bench: every child is started in its own process group, remembered, and killed
// (with its group, so anything it spawned goes too) when the scenario is done, on error, and when the bench exits.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const live = new Set();

function killGroup(child, signal = 'SIGKILL') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/** Kills every child still running (synchronous, safe in an 'exit' handler). */
export function killAll() {
  for (const child of live) killGroup(child);
  live.clear();
}

process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

let nodePath = process.execPath;

/** The Node.js binary children run (default: the bench's own); `--node` / `--nodes` change it. */
export function setNode(path) {
  nodePath = path;
}

export function nodeBinary() {
  return nodePath;
}

/**
 * Starts the selected Node.js binary ({@link setNode}) with `args` and `env`, piping stdout/stderr. Lines on stdout
 * are delivered to `onLine(line, tMs)` with the `performance.now()` time they were read; the last 64 KiB of stderr
 * are kept for errors. `cpus` (a `taskset -c` list) pins the child; taskset execs node, so the pid is node's.
 */
export function startNode(args, { env, cwd, onLine, stdin = 'ignore', ipc = false, cpus } = {}) {
  const [file, argv] = cpus === undefined ? [nodePath, args] : ['taskset', ['-c', cpus, nodePath, ...args]];
  const child = spawn(file, argv, {
    env,
    cwd,
    detached: true, // own process group, so killGroup reaches grandchildren
    stdio: [stdin, 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-65536);
  });
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    const t = performance.now();
    stdout = (stdout + d).slice(-65536);
    partial += d;
    let i;
    while ((i = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, i);
      partial = partial.slice(i + 1);
      onLine?.(line, t);
    }
  });
  child.stderrText = () => stderr;
  child.stdoutText = () => stdout;
  return child;
}

/** Kills the child's process group and waits (bounded) for it to be gone. */
export async function stop(child, signal = 'SIGKILL', timeoutMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  killGroup(child, signal);
  const timer = delay(timeoutMs).then(() => 'timeout');
  if ((await Promise.race([exited, timer])) === 'timeout') {
    killGroup(child, 'SIGKILL');
    await Promise.race([exited, delay(2000)]);
  }
}

/**
 * Resolves with the first stdout line that matches `re` (the match array and the time it was read), or rejects
 * when the child exits first or `timeoutMs` passes. The child must have been started with `onLine` from `lineWaiter`.
 */
export function lineWaiter() {
  const waiters = [];
  const seen = [];
  const onLine = (line, t) => {
    seen.push([line, t]);
    for (const w of [...waiters]) {
      const m = w.re.exec(line);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve({ match: m, t });
      }
    }
  };
  const wait = (child, re, timeoutMs) =>
    new Promise((resolve, reject) => {
      for (const [line, t] of seen) {
        const m = re.exec(line);
        if (m) return resolve({ match: m, t });
      }
      const w = {
        re,
        resolve: (v) => {
          cleanup();
          resolve(v);
        },
      };
      const fail = (why) => {
        cleanup();
        const errLines = child.stderrText().trim().split('\n');
        const firstError = errLines.findIndex((l) => /error/i.test(l));
        const tail = (firstError >= 0 ? errLines.slice(firstError, firstError + 3) : errLines.slice(-6)).join('\n');
        reject(new Error(`${why}${tail ? `; stderr:\n${tail}` : ''}`));
      };
      // stdout may still hold the line when 'exit' fires: fail only once the stream has ended.
      const onExit = (code, sig) => {
        const why = `exited (${sig ?? code}) before printing ${re}`;
        if (child.stdout.readableEnded || child.stdout.destroyed) setImmediate(() => fail(why));
        else child.stdout.once('close', () => setImmediate(() => fail(why)));
      };
      const timer = setTimeout(() => fail(`no ${re} within ${timeoutMs} ms`), timeoutMs);
      function cleanup() {
        clearTimeout(timer);
        child.off('exit', onExit);
        const i = waiters.indexOf(w);
        if (i >= 0) waiters.splice(i, 1);
      }
      waiters.push(w);
      child.once('exit', onExit);
    });
  return { onLine, wait };
}

export function delay(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
