// Child processes for examples/demo.mjs: start an example under the preload, wait for its ready
// line, stop it with a signal and wait for it to exit, kill what is left.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: the cwd of every child, so `--import @tracehook/register` self-resolves. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const children = new Set();

/**
 * Runs `node --import @tracehook/register examples/<name>.mjs ...args` with `env` added to a clean
 * copy of this environment. Every line the child writes is echoed with a `[name]` prefix
 * (stdout only when `echoStdout`). Returns the child, its stdout lines so far, and `exited`, a
 * promise of `{ code, signal }`.
 */
export function startExample(name, { env = {}, args = [], echoStdout = false } = {}) {
  const child = spawn(process.execPath, ['--import', '@tracehook/register', `examples/${name}.mjs`, ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const lines = [];
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  eachLine(child.stdout, (line) => {
    lines.push(line);
    if (echoStdout) console.log(`  [${name}] ${line}`);
  });
  eachLine(child.stderr, (line) => console.error(`  [${name}] ${line}`));
  return { name, child, lines, exited };
}

/**
 * Resolves with the port of a started example once it prints "listening on 127.0.0.1:<port>";
 * rejects if it exits first or stays silent for `timeoutMs`.
 */
export function waitForPort(example, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${example.name} printed no ready line within ${timeoutMs} ms`)), timeoutMs);
    const check = () => {
      for (const line of example.lines) {
        const match = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          return resolve(Number(match[1]));
        }
      }
      return undefined;
    };
    example.child.stdout.on('data', () => setImmediate(check));
    example.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${example.name} exited (code ${code}, signal ${signal}) before it was ready`));
    });
    check();
  });
}

/**
 * Sends `signal` and waits up to `timeoutMs` for the exit; a child still running then is killed
 * with SIGKILL and reported as `{ killed: true }`.
 */
export async function stopExample(example, signal = 'SIGTERM', timeoutMs = 5000) {
  example.child.kill(signal);
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const result = await Promise.race([example.exited, late]);
  clearTimeout(timer);
  if (result !== 'late') return result;
  example.child.kill('SIGKILL');
  return { ...(await example.exited), killed: true };
}

/** SIGKILLs every child still running (the demo's last resort when something hangs). */
export function killAll() {
  for (const child of children) child.kill('SIGKILL');
}

// The demo must write span files whatever the caller's shell has set: an inherited exporter,
// sampler, hook or disable switch would send the spans elsewhere or nowhere. OTEL_LOG_LEVEL is
// kept, since it only makes the preload more talkative.
function cleanEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if ((key.startsWith('OTEL_') && key !== 'OTEL_LOG_LEVEL') || key.startsWith('TRACEHOOK_')) delete env[key];
  }
  return env;
}

function eachLine(stream, onLine) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    for (const line of parts) onLine(line);
  });
  stream.on('end', () => {
    if (rest) onLine(rest);
  });
}
