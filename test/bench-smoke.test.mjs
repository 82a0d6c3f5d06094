// The benchmark harness works end to end: `node bench/run.mjs --quick --only startup --rounds 1` exits 0 and prints
// a table row for every variant (a variant that cannot run prints an n/a row), the one-line script's and the
// worker start's rows (wall clock, heap, the worker thread's CPU) included; a one-round workers and throughput run prints the steady-state rows with their goals
// and their distance to the floor prototype (bench/lib/floor-preload.cjs). No timing is asserted: timings belong to
// `npm run bench` on a quiet machine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const run = fileURLToPath(new URL('../bench/run.mjs', import.meta.url));
const VARIANTS = ['untraced', 'tracehook-files', 'tracehook-disabled', 'import-floor', 'floor-export', 'tracehook-otlp', 'otel', 'dd-trace'];

function bench(args, timeout) {
  return new Promise((resolve) => {
    execFile(process.execPath, [run, ...args], { timeout }, (err, stdout, stderr) => resolve({ code: err ? (err.code ?? err.signal) : 0, stdout, stderr }));
  });
}

/** The table's rows as { scenario, measure, variant, median, vs, floor, goal, met, note }. */
function rows(stdout) {
  const keys = ['scenario', 'measure', 'variant', 'median', 'vs', 'floor', 'goal', 'met', 'note'];
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| scenario') && !l.startsWith('| ---'))
    .map((l) =>
      Object.fromEntries(
        l
          .split('|')
          .slice(1, -1)
          .map((c, i) => [keys[i], c.trim()]),
      ),
    );
}

test('bench harness: a one-round startup run prints one table row per variant, and the one-line script and worker start rows', { timeout: 90_000 }, async () => {
  const { code, stdout, stderr } = await bench(['--quick', '--only', 'startup', '--rounds', '1'], 85_000);
  assert.equal(code, 0, `bench/run.mjs failed:\n${stderr}`);
  const all = rows(stdout);
  for (const v of VARIANTS) {
    assert.equal(all.filter((r) => r.scenario === 'startup' && r.measure === 'spawn → first HTTP 200' && r.variant === v).length, 1, `one startup row for ${v} in:\n${stdout}`);
  }
  const print = all.filter((r) => r.measure === 'spawn → exit, a script that prints one line');
  assert.deepEqual(
    print.map((r) => r.variant),
    ['untraced', 'tracehook-files', 'tracehook-disabled', 'import-floor', 'floor-export'],
    stdout,
  );
  assert.equal(print.find((r) => r.variant === 'tracehook-files').goal, '≤ +25 ms');
  assert.match(print.find((r) => r.variant === 'tracehook-files').floor, /\(export\)$/);
  assert.match(print.find((r) => r.variant === 'tracehook-disabled').floor, /\(import-floor\)$/);
  for (const measure of ['new Worker() → its first message', "a new worker's heap at its first message"]) {
    const traced = all.find((r) => r.measure === measure && r.variant === 'tracehook-files');
    assert.ok(traced?.goal && traced.met !== 'n/a', `${measure}: a goal row with a value in:\n${stdout}`);
    assert.match(traced.floor, /\(export\)$/);
  }
  // The worker thread's own CPU, which a loaded machine does not inflate (Linux: its schedstat).
  if (process.platform === 'linux') {
    const cpu = all.filter((r) => r.measure === "a new worker thread's CPU to its first message");
    assert.deepEqual(
      cpu.map((r) => r.variant),
      ['untraced', 'tracehook-files', 'floor-export'],
      stdout,
    );
    const traced = cpu.find((r) => r.variant === 'tracehook-files');
    assert.match(traced.vs, /ms/, stdout);
    assert.match(traced.floor, /\(export\)$/);
  }
});

test('bench harness: one round of workers and throughput prints the steady-state goal rows with their distance to the floor', { timeout: 120_000 }, async () => {
  const { code, stdout, stderr } = await bench(['--quick', '--only', 'workers,throughput', '--rounds', '1', '--duration', '0.3', '--variants', 'tracehook-files,floor-export'], 115_000);
  assert.equal(code, 0, `bench/run.mjs failed:\n${stderr}`);
  const all = rows(stdout);
  const find = (measure, variant) => all.find((r) => r.measure.startsWith(measure) && r.variant === variant);
  for (const app of ['postMessage round trips/s, in a traced request', 'piscina no-op tasks/s, in a traced request']) {
    assert.ok(find(`${app}, 100 ms warm-up`, 'tracehook-files'), `${app}: the warm-up row in:\n${stdout}`);
    const steady = find(`${app}, steady`, 'tracehook-files');
    assert.ok(steady?.goal.startsWith('≥ ×'), `${app}: the steady row with its goal in:\n${stdout}`);
    assert.match(steady.floor, /^×\d.*\(export\)$/);
    assert.ok(find(`${app}, steady`, 'floor-export')?.median.endsWith('/s'), `${app}: the floor's own row`);
  }
  const tail = find('round trips slower than 3× the median', 'tracehook-files');
  assert.equal(tail?.goal, "≤ untraced's", stdout);
  assert.match(tail.median, /%$/);
  assert.ok(find('main-thread CPU per messaging span (pingpong), steady', 'tracehook-files')?.goal, stdout);
  assert.match(find('requests/s', 'tracehook-files')?.floor ?? '', /\(export\)$/, stdout);
  assert.ok(find('longest event-loop delay', 'tracehook-files')?.goal, stdout);
});
