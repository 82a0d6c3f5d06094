// Runs fixture apps as a user would: a child `node --import @tracehook/register app` with its own
// span directory, then reads the span files back with tracehook's decoder.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSpanDir } from '../../dist/span-file/decode.js';

/** The repository root: fixtures run with it as cwd, so `@tracehook/register` self-resolves. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures');

/** A fresh spans directory, removed when the test ends. */
export function spansDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-test-'));
  t?.after?.(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts `fixture` (a path under test/fixtures, or absolute) under the preload.
 * @param opts.preload - node args that load the preload; default `['--import', '@tracehook/register']`
 * @param opts.command - replaces `node <preload> <fixture>` entirely (e.g. the tracehook CLI)
 * @param opts.timeoutMs - the fixture is killed (SIGKILL) after this long, ms; default 60000
 * @param opts.detached - start it in a new session (no controlling terminal, its own process group)
 * @returns a handle: `ready(pattern)` waits for a stdout line, `done` resolves to
 *   `{ code, signal, stdout, stderr }`, `kill(signal)`.
 */
export function start(fixture, opts = {}) {
  const file = fixture === null ? null : fixture.startsWith('/') ? fixture : join(FIXTURES, fixture);
  const preload = opts.preload ?? ['--import', '@tracehook/register'];
  const args = opts.command ?? [...preload, file, ...(opts.args ?? [])];
  const env = { ...process.env, OTEL_LOG_LEVEL: undefined, NODE_OPTIONS: undefined, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const child = spawn(process.execPath, args, { cwd: opts.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'], detached: opts.detached });
  let stdout = '';
  let stderr = '';
  const waiters = [];
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  // Only a guard against a hung fixture: on a loaded 2-core machine a busy fixture (1000 pool tasks)
  // took 19 s, so the default is wide. A kill is written into the result's stderr.
  const timeoutMs = opts.timeoutMs ?? 60000;
  const timer = setTimeout(() => {
    stderr += `\n[fixture helper] killed with SIGKILL after ${timeoutMs} ms (opts.timeoutMs)\n`;
    child.kill('SIGKILL');
  }, timeoutMs);
  const done = new Promise((res) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const w of waiters.splice(0)) w();
      res({ code, signal, stdout, stderr });
    });
  });
  let exited = false;
  done.then(() => (exited = true));
  return {
    child,
    done,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    kill: (signal = 'SIGTERM') => child.kill(signal),
    /** Resolves with the first match of `pattern` on stdout; rejects if the app ends first. */
    ready(pattern = /listening (\d+)/) {
      return new Promise((res, rej) => {
        const check = () => {
          const m = stdout.match(pattern);
          if (m) return res(m);
          if (exited) return rej(new Error(`fixture ended before ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`));
          waiters.push(check);
        };
        check();
      });
    },
  };
}

/** Runs `fixture` to its end. @returns `{ code, signal, stdout, stderr }` */
export function run(fixture, opts = {}) {
  return start(fixture, opts).done;
}

/** The decoded spans of `dir`. */
export function readSpans(dir) {
  return readSpanDir(dir);
}

/** HTTP GET on 127.0.0.1 with optional headers. @returns `{ status, headers, body }` */
export async function get(port, path = '/', headers = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

/** A W3C traceparent with random ids. @returns `{ traceId, spanId, traceparent }` */
export function makeTraceparent(sampled = true) {
  const hex = (n) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const traceId = hex(32);
  const spanId = hex(16);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}` };
}
