// Under the preload every documented patch site (docs/architecture.md, "Patch inventory") carries
// tracehook's marker in the thread or process it applies to: a Node.js or library release that
// makes a patch miss its target fails here instead of passing silently.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, run, spansDir } from './helpers/fixture.mjs';

const EVERY_THREAD = [
  'child_process.ChildProcess#spawn',
  'child_process.execFileSync',
  'child_process.execSync',
  'child_process.spawnSync',
  'http.IncomingMessage#emit',
  'http.Server#emit',
  'http.ServerResponse#emit',
  'https.Server#emit',
  'module-hooks.Module#load',
  'module-hooks.Module#require',
  'pools.MessagePort#postMessage',
  'pools.async_hooks.AsyncResource',
  'signals.process.emit',
  'signals.process.eventNames',
  'signals.process.listenerCount',
  'signals.process.listeners',
  'signals.process.rawListeners',
  'worker_threads.Worker',
];

const EXPECTED = {
  main: [
    ...EVERY_THREAD,
    'signals.process.kill',
    'context-manager.active',
    'routes.Route#dispatch',
    'routes.Router#middleware',
    'routes.Router#use',
    'routes.Layer#handleRequest',
    'routes.Layer#handleError',
    'routes.finalhandler',
    'routes.fastify.handleError',
    'routes.Context#onerror',
    'routes.BaseExceptionFilter#catch',
  ],
  worker: [
    ...EVERY_THREAD,
    'worker.TracerProvider._activeSpanProcessor.onEnd',
    'worker.parentPort.addEventListener',
    'worker.parentPort.postMessage',
    'worker.parentPort.removeEventListener',
    'worker.parentPort[kHybridDispatch]',
    'worker.receiveMessageOnPort',
  ],
  child: [...EVERY_THREAD, 'signals.process.kill', 'ipc-entry.process.emit', 'ipc.emit', 'ipc.send'],
  pool: ['pool-worker.Atomics.wait', 'pool-worker.receiveMessageOnPort'],
  'main-before-builtins': ['builtin-loaded.diagnostics_channel.channel', 'builtin-loaded.process.getBuiltinModule'],
};

test('every documented patch site is marked in the main thread, a worker thread, a forked child and a pool worker', async (t) => {
  const result = await run('patch-sites.cjs', { env: { TRACEHOOK_SPANS_DIR: spansDir(t), TRACEPARENT: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
  assert.equal(result.code, 0, result.stderr);
  const found = Object.fromEntries([...result.stdout.matchAll(/^sites ([\w-]+) (.*)$/gm)].map((m) => [m[1], JSON.parse(m[2])]));
  for (const [where, ids] of Object.entries(EXPECTED)) {
    assert.ok(found[where], `no report from ${where}: ${result.stdout}`);
    assert.deepEqual(
      ids.filter((id) => !found[where].includes(id)),
      [],
      `unmarked in ${where}`,
    );
  }
  assert.deepEqual(found['main-after-builtins'], [], 'the watchers are removed once node:worker_threads and node:child_process are loaded');
});

// register.mjs swaps process.emitWarning outside the patch helper during module.register() (docs/architecture.md,
// "Patch inventory", `register.process.emitWarning`): once startup is over it must be Node.js's own again.
test("register.process.emitWarning is undone: after startup with the ESM loader hook, process.emitWarning is Node.js's own", (t) => {
  const code = `const w = process.emitWarning; console.log(JSON.stringify([w.name, w.length, w.__wrapped === undefined, w[Symbol.for('tracehook.patched')] === undefined]))`;
  const r = spawnSync(process.execPath, ['--import', join(ROOT, 'register.mjs'), '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, TRACEHOOK_SPANS_DIR: spansDir(t), TRACEHOOK_ESM_LOADER: 'true' },
  });
  assert.equal(r.status, 0, r.stderr);
  const plain = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
  assert.equal(r.stdout, plain.stdout);
  assert.deepEqual(JSON.parse(r.stdout).slice(2), [true, true]);
});
