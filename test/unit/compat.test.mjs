// Every Node.js and library internal tracehook relies on (src/compat/, one module per target), checked on the running
// Node.js version (CI runs this file on Node.js 20, 22, 24 and 26): (a) the internal is there and behaves as the code
// that uses it assumes, against the real Node.js and the real packages; (b) when it is gone (simulated: an object
// without it, a stubbed module) its accessor says so and the caller's fallback is taken without throwing.
// Usage: npm run build && node --test test/unit/compat.test.mjs
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

const root = new URL('../../', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const dist = (file) => join(root, 'dist', file);
const compat = (name) => require(dist(`compat/${name}.js`));
const { wrap } = require(dist('patch/wrap.js'));
const site = { component: 'test', id: 'compat.test', otherwise: 'nothing' };

/** Runs `code` (CommonJS) in a fresh node and returns its stdout, trimmed; `compat` there requires dist/compat/<name>.js. */
function runNode(code, options = {}) {
  const prelude = `const compat = (name) => require(${JSON.stringify(dist('compat'))} + '/' + name + '.js');\n`;
  return execFileSync(process.execPath, ['-e', prelude + code], { encoding: 'utf8', cwd: root, ...options }).trim();
}

test("kHybridDispatch: a worker's parentPort has it, and an own property there sees each message before its listener", async () => {
  const code = `
    const { parentPort } = require('node:worker_threads');
    const { kHybridDispatch, hybridDispatchOf } = require(${JSON.stringify(dist('compat/node-worker-threads.js'))});
    const original = hybridDispatchOf(parentPort);
    const seen = [];
    parentPort[kHybridDispatch] = function (data, type, event) { seen.push([type, data]); return original.call(this, data, type, event); };
    parentPort.once('message', (m) => parentPort.postMessage({ present: typeof original, seen, got: m }));`;
  const worker = new Worker(code, { eval: true });
  const reply = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  worker.postMessage('hello');
  const { present, seen, got } = await reply;
  await worker.terminate();
  assert.equal(present, 'function');
  assert.equal(got, 'hello');
  assert.deepEqual(seen, [['message', 'hello']]);
});

test('kHybridDispatch gone: the accessor says undefined and the patch is skipped without a throw', () => {
  const { kHybridDispatch, hybridDispatchOf } = compat('node-worker-threads');
  const port = new EventEmitter();
  assert.equal(hybridDispatchOf(port), undefined);
  assert.equal(hybridDispatchOf(undefined), undefined);
  assert.equal(
    wrap(port, kHybridDispatch, site, (d) => d),
    false,
  );
  assert.equal(Object.getOwnPropertySymbols(port).includes(kHybridDispatch), false);
});

test('Module internals: _cache is require.cache, _nodeModulePaths lists node_modules folders, _load is require', () => {
  const { moduleInternals, moduleLoad } = compat('node-module');
  const Module = moduleInternals();
  assert.ok(Module, 'Module._cache / Module._nodeModulePaths');
  assert.equal(Module._cache, require.cache);
  assert.ok(Module._nodeModulePaths('/a/b').includes('/a/b/node_modules'));
  const m = new Module('/x/y.js');
  assert.equal(typeof m.exports, 'object');
  assert.equal(moduleLoad()('node:path', null, false), require('node:path'));
});

test('Module internals gone: the accessors say undefined (callers then require() the bundle and leave shared modules alone)', () => {
  const { moduleInternals, moduleLoad } = compat('node-module');
  assert.equal(moduleInternals({ _cache: {}, _nodeModulePaths() {} }), undefined, 'not a class');
  assert.equal(moduleInternals(class {}), undefined);
  assert.equal(moduleInternals(Object.assign(class {}, { _cache: {} })), undefined, 'no _nodeModulePaths');
  assert.equal(moduleLoad({}), undefined);
  // Node.js's own loader reads these same properties, so they cannot be taken away from a running process to test
  // the callers: load-bundle.ts and shared-modules.ts return at `moduleInternals(...) === undefined`.
});

test('process.moduleLoadList: a built-in appears as `NativeModule <id>` once loaded', () => {
  const out = runNode(`
    const { moduleLoadList, isBuiltinInLoadList } = compat('node-loaded-modules');
    const before = isBuiltinInLoadList(moduleLoadList(), 'https');
    require('node:https');
    console.log(JSON.stringify([Array.isArray(moduleLoadList()), before, isBuiltinInLoadList(moduleLoadList(), 'https'), moduleLoadList().includes('NativeModule https')]));`);
  assert.deepEqual(JSON.parse(out), [true, false, true, true]);
});

test('process.moduleLoadList gone: every built-in counts as loaded (callers patch at once)', () => {
  const { moduleLoadList, isBuiltinInLoadList } = compat('node-loaded-modules');
  assert.equal(moduleLoadList({}), undefined);
  assert.equal(moduleLoadList({ moduleLoadList: 'x' }), undefined);
  assert.equal(isBuiltinInLoadList(undefined, 'https'), true);
  const out = runNode(`
    Object.defineProperty(process, 'moduleLoadList', { value: undefined });
    const { isBuiltinLoaded } = require(${JSON.stringify(dist('patch/builtin-loaded.js'))});
    console.log(isBuiltinLoaded('https'));`);
  assert.equal(out, 'true');
});

test('envPairs: ChildProcess#spawn receives the environment as NAME=value pairs', () => {
  const { envPairsOf } = compat('node-child-process');
  const { ChildProcess } = require('node:child_process');
  const original = ChildProcess.prototype.spawn;
  let seen;
  ChildProcess.prototype.spawn = function (options) {
    seen = envPairsOf(options);
    return original.call(this, options);
  };
  try {
    spawn(process.execPath, ['-e', ''], { env: { TRACEHOOK_COMPAT_TEST: 'yes' }, stdio: 'ignore' });
  } finally {
    ChildProcess.prototype.spawn = original;
  }
  assert.ok(Array.isArray(seen), 'options.envPairs');
  assert.ok(seen.includes('TRACEHOOK_COMPAT_TEST=yes'));
});

test("'internalMessage': a NODE_ message reaches 'internalMessage' and never 'message'", async () => {
  const { INTERNAL_MESSAGE_EVENT, INTERNAL_MESSAGE_PREFIX } = compat('node-child-process');
  const code = `
    process.on(${JSON.stringify(INTERNAL_MESSAGE_EVENT)}, (m) => { if (m && m.cmd === 'NODE_TRACEHOOK_COMPAT') process.send({ internal: m.cmd }); });
    process.on('message', (m) => { process.send({ user: m }); process.disconnect(); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const got = [];
  child.on('message', (m) => got.push(m));
  child.send({ cmd: `${INTERNAL_MESSAGE_PREFIX}TRACEHOOK_COMPAT` });
  child.send({ app: 1 });
  await new Promise((resolve) => child.on('exit', resolve));
  assert.deepEqual(got, [{ internal: 'NODE_TRACEHOOK_COMPAT' }, { user: { app: 1 } }]);
});

test('envPairs gone: the accessor says undefined and the child starts without the preload, never failing', () => {
  const { envPairsOf } = compat('node-child-process');
  assert.equal(envPairsOf({}), undefined);
  assert.equal(envPairsOf(undefined), undefined);
  assert.equal(envPairsOf({ envPairs: 'A=1' }), undefined);
  const out = runNode(`
    const { ChildProcess, spawnSync } = require('node:child_process');
    require(${JSON.stringify(dist('workers/child-process.js'))}).installChildProcessParent();
    // Outside tracehook's wrapper: the options it sees have no envPairs (Node.js then passes its own environment).
    const spawn = ChildProcess.prototype.spawn;
    ChildProcess.prototype.spawn = function (options) { const { envPairs, ...rest } = options; return spawn.call(this, rest); };
    const r = require('node:child_process').spawnSync(process.execPath, ['-e', 'console.log(1)'], { encoding: 'utf8' });
    const c = require('node:child_process').spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    c.on('exit', (code) => console.log(r.stdout.trim() + code));`);
  assert.equal(out, '10');
});

test('node:https builds its global agent through _http_agent.Agent as it loads, for an ES module import too', () => {
  const out = runNode(`
    const agents = compat('node-https').httpAgentModule();
    const original = agents.Agent;
    let calls = 0;
    agents.Agent = function Agent(...args) { calls++; return Reflect.apply(original, this, args); };
    agents.Agent.prototype = original.prototype;
    Object.setPrototypeOf(agents.Agent, original);
    import('node:https').then((https) => console.log(calls, https.globalAgent instanceof original));`);
  assert.equal(out, '1 true');
});

test('_http_agent gone: the accessor says undefined', () => {
  const { httpAgentModule } = compat('node-https');
  assert.ok(httpAgentModule());
  assert.equal(
    httpAgentModule(() => ({})),
    undefined,
  );
  assert.equal(
    httpAgentModule(() => {
      throw new Error('Cannot find module');
    }),
    undefined,
  );
});

/** Runs a child that listens for SIGUSR2, removes its listener (reporting a count of `countDuringRemove` while it does, when set) and sends itself SIGUSR2. */
function signalAfterLastListenerRemoved(countDuringRemove) {
  const code = `
    const f = () => {};
    process.on('SIGUSR2', f);
    const listenerCount = process.listenerCount;
    ${countDuringRemove === undefined ? '' : `process.listenerCount = function (type) { return type === 'SIGUSR2' ? ${countDuringRemove} : listenerCount.apply(this, arguments); };`}
    process.removeListener('SIGUSR2', f);
    process.listenerCount = listenerCount;
    process.kill(process.pid, 'SIGUSR2');
    setTimeout(() => console.log('alive'), 100);`;
  return spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
}

test("a signal's handle closes with its last listener, judged by process.listenerCount during 'removeListener'", () => {
  assert.equal(typeof compat('node-signals').signalHandleListener(), 'function', "Node.js's stopListeningIfSignal");
  const closed = signalAfterLastListenerRemoved(undefined);
  assert.equal(closed.signal, 'SIGUSR2', 'handle closed: the default action ends the process');
  const kept = signalAfterLastListenerRemoved(1);
  assert.equal(kept.status, 0, 'handle kept open: the signal is caught');
  assert.equal(kept.stdout.trim(), 'alive');
});

test('the signal-handle listener gone: the accessor says undefined', () => {
  assert.equal(compat('node-signals').signalHandleListener(new EventEmitter()), undefined);
});

test("SDK: BasicTracerProvider's _activeSpanProcessor sees every span end; BatchSpanProcessor's _flushOneBatch arms its export timer", async () => {
  const { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-base');
  const { activeSpanProcessorOf, spanProcessorListOf, hasFlushOneBatch, FLUSH_ONE_BATCH } = compat('otel-sdk');
  const hanging = { export() {}, shutdown: async () => {} };
  const batch = new BatchSpanProcessor(hanging, { scheduledDelayMillis: 1e9 });
  const simple = new SimpleSpanProcessor(new InMemorySpanExporter());
  const provider = new BasicTracerProvider({ spanProcessors: [simple, batch] });
  const active = activeSpanProcessorOf(provider);
  assert.equal(typeof active?.onEnd, 'function');
  assert.deepEqual(spanProcessorListOf(provider), [simple, batch]);
  let ended = 0;
  const onEnd = active.onEnd;
  active.onEnd = function (span) {
    ended++;
    return onEnd.call(this, span);
  };
  provider.getTracer('t').startSpan('s').end();
  assert.equal(ended, 1);
  assert.equal(hasFlushOneBatch(batch), true);
  assert.equal(hasFlushOneBatch(simple), false);
  const timers = [];
  const setTimeoutBefore = globalThis.setTimeout;
  globalThis.setTimeout = function (...args) {
    const t = setTimeoutBefore(...args);
    timers.push(t);
    return t;
  };
  try {
    batch[FLUSH_ONE_BATCH]();
  } finally {
    globalThis.setTimeout = setTimeoutBefore;
  }
  assert.ok(timers.length >= 1, '_flushOneBatch sets its export time-out timer synchronously');
  for (const t of timers) clearTimeout(t);
});

test('SDK internals gone: the accessors say so and unrefExportTimers does nothing, without a throw', () => {
  const { activeSpanProcessorOf, spanProcessorListOf, hasFlushOneBatch } = compat('otel-sdk');
  assert.equal(activeSpanProcessorOf({}), undefined);
  assert.equal(activeSpanProcessorOf({ _activeSpanProcessor: {} }), undefined);
  assert.equal(spanProcessorListOf({ _activeSpanProcessor: { onEnd() {} } }), undefined);
  assert.equal(hasFlushOneBatch({}), false);
  const { spanProcessorsOf, unrefExportTimers } = require(dist('preload/unref-timers.js'));
  assert.deepEqual(spanProcessorsOf({}), []);
  unrefExportTimers({ _activeSpanProcessor: { onEnd() {}, _spanProcessors: [{ onEnd() {} }] } });
});

test("context-async-hooks: AsyncLocalStorageContextManager's _asyncLocalStorage enters a context with enterWith()", async () => {
  const api = require('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const { asyncLocalStorageOf, contextManagerOf } = compat('otel-context');
  const manager = new AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(manager);
  try {
    assert.equal(contextManagerOf(api.context), manager);
    const storage = asyncLocalStorageOf(manager);
    assert.ok(storage, '_asyncLocalStorage with enterWith and getStore');
    const key = api.createContextKey('compat');
    const ctx = api.ROOT_CONTEXT.setValue(key, 1);
    await new Promise((resolve) =>
      setImmediate(() => {
        storage.enterWith(ctx);
        assert.equal(storage.getStore(), ctx);
        assert.equal(api.context.active().getValue(key), 1);
        setImmediate(() => resolve(assert.equal(api.context.active().getValue(key), 1)));
      }),
    );
  } finally {
    api.context.disable();
  }
});

test('_asyncLocalStorage gone: the accessor says undefined and entering the startup context returns false', () => {
  const api = require('@opentelemetry/api');
  const { asyncLocalStorageOf, contextManagerOf } = compat('otel-context');
  assert.equal(asyncLocalStorageOf({}), undefined);
  assert.equal(asyncLocalStorageOf({ _asyncLocalStorage: { enterWith() {} } }), undefined);
  assert.equal(contextManagerOf({}), undefined);
  const manager = {
    active: () => api.ROOT_CONTEXT,
    with: (c, fn, t, ...a) => fn.call(t, ...a),
    bind: (c, t) => t,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
  api.context.setGlobalContextManager(manager);
  try {
    const { enterContext } = require(dist('workers/startup-context.js'));
    assert.equal(enterContext(api.ROOT_CONTEXT), false);
  } finally {
    api.context.disable();
  }
});

test('OTLP exporter: _delegate._transport is the retrying transport with retry()', () => {
  const { otlpTransportOf } = compat('otel-otlp-exporter');
  for (const pkg of ['@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/exporter-trace-otlp-proto']) {
    const { OTLPTraceExporter } = require(pkg);
    const transport = otlpTransportOf(new OTLPTraceExporter());
    assert.equal(typeof transport?.retry, 'function', pkg);
  }
  assert.equal(otlpTransportOf({}), undefined);
  assert.equal(otlpTransportOf({ _delegate: { _transport: 1 } }), undefined);
});

test('piscina and tinypool: a TaskInfo is an AsyncResource of type <Pool>.Task with releaseTask() before its post, and done()', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-compat-'));
  writeFileSync(join(dir, 'task.js'), 'module.exports = (x) => x * 2;\n');
  const out = runNode(`
    const { poolOfTaskType, hasTaskInfoMethods } = compat('pools');
    const hooks = require('node:async_hooks');
    const { MessagePort } = require('node:worker_threads');
    const events = [];
    const Original = hooks.AsyncResource;
    hooks.AsyncResource = class AsyncResource extends Original {
      constructor(type, options) {
        super(type, options);
        const pool = poolOfTaskType(type);
        if (pool === undefined) return;
        const proto = new.target.prototype;
        events.push({ pool, methods: hasTaskInfoMethods(proto) });
        if (!proto.__seen) {
          proto.__seen = true;
          const release = proto.releaseTask;
          proto.releaseTask = function () { events.push({ pool, released: this.taskId }); return release.apply(this, arguments); };
        }
      }
    };
    require('node:module').syncBuiltinESMExports();
    const post = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (m) { if (m && m.taskId !== undefined) events.push({ posted: m.taskId }); return post.apply(this, arguments); };
    (async () => {
      const Piscina = require('piscina');
      const { Tinypool } = await import('tinypool');
      for (const Pool of [Piscina, Tinypool]) {
        const pool = new Pool({ filename: ${JSON.stringify(join(dir, 'task.js'))}, maxThreads: 1, minThreads: 1 });
        events.push({ result: await pool.run(21) });
        await pool.destroy();
      }
      console.log(JSON.stringify(events));
    })();`);
  const events = JSON.parse(out);
  for (const pool of ['piscina', 'tinypool']) {
    const created = events.find((e) => e.pool === pool && 'methods' in e);
    assert.deepEqual(created, { pool, methods: true }, pool);
    const released = events.findIndex((e) => e.pool === pool && 'released' in e);
    assert.ok(released >= 0, `${pool}: releaseTask() called`);
    assert.equal(typeof events[released].released, 'number', `${pool}: taskId`);
    assert.equal(events[released + 1]?.posted, events[released].released, `${pool}: the post of that task follows releaseTask()`);
  }
  assert.deepEqual(
    events.filter((e) => 'result' in e),
    [{ result: 42 }, { result: 42 }],
  );
});

test('pool TaskInfo gone: no pool matches and a prototype without its methods is refused', () => {
  const { poolOfTaskType, hasTaskInfoMethods } = compat('pools');
  assert.equal(poolOfTaskType('Piscina.Task'), 'piscina');
  assert.equal(poolOfTaskType('Tinypool.Task'), 'tinypool');
  assert.equal(poolOfTaskType('toString'), undefined);
  assert.equal(poolOfTaskType('Other.Task'), undefined);
  assert.equal(hasTaskInfoMethods({ releaseTask() {} }), false);
  assert.equal(hasTaskInfoMethods(undefined), false);
});

test('OTLP exporter: _delegate._serializer is read at each export, so replacing it on one delegate is seen by that exporter only', async () => {
  const { otlpSerializerHolderOf } = compat('otel-otlp-exporter');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
  const a = new OTLPTraceExporter({ url: 'http://127.0.0.1:9/v1/traces', timeoutMillis: 200 });
  const b = new OTLPTraceExporter({ url: 'http://127.0.0.1:9/v1/traces', timeoutMillis: 200 });
  const holder = otlpSerializerHolderOf(a);
  assert.equal(typeof holder?._serializer.serializeRequest, 'function');
  assert.equal(typeof holder._serializer.deserializeResponse, 'function');
  const original = holder._serializer;
  let seen = 0;
  holder._serializer = { serializeRequest: (spans) => (seen++, original.serializeRequest(spans)), deserializeResponse: (d) => original.deserializeResponse(d) };
  assert.equal(otlpSerializerHolderOf(b)._serializer, original, 'the other exporter keeps the shared serializer');
  await new Promise((resolve) => a.export([], resolve));
  assert.equal(seen, 1);
  await a.shutdown();
  await b.shutdown();
});

test('OTLP exporter _delegate._serializer gone: the accessor says undefined and partial successes are not kept', () => {
  const { otlpSerializerHolderOf } = compat('otel-otlp-exporter');
  assert.equal(otlpSerializerHolderOf({}), undefined);
  assert.equal(otlpSerializerHolderOf({ _delegate: { _serializer: { serializeRequest() {} } } }), undefined);
  const { keepPartialSuccess } = require(dist('exporters/partial-success.js'));
  const take = keepPartialSuccess({ _delegate: {} });
  assert.equal(take(), undefined);
});

test("SDK: BasicTracerProvider's _tracerOptions, the processors' _exporter and BatchSpanProcessor's _finishedSpans", () => {
  const { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-base');
  const { tracerOptionsOf, spanProcessorExporterOf, finishedSpansOf, activeSpanProcessorOf } = compat('otel-sdk');
  const batchExporter = new InMemorySpanExporter();
  const simpleExporter = new InMemorySpanExporter();
  const batch = new BatchSpanProcessor(batchExporter, { scheduledDelayMillis: 1e9 });
  const simple = new SimpleSpanProcessor(simpleExporter);
  const provider = new BasicTracerProvider({ spanProcessors: [batch, simple] });
  const options = tracerOptionsOf(provider);
  assert.ok(options, '_tracerOptions');
  assert.equal(options.spanProcessor, activeSpanProcessorOf(provider));
  assert.equal(typeof options.idGenerator.generateTraceId, 'function');
  assert.equal(spanProcessorExporterOf(batch), batchExporter);
  assert.equal(spanProcessorExporterOf(simple), simpleExporter);
  provider.getTracer('t').startSpan('queued').end();
  assert.deepEqual(
    finishedSpansOf(batch).map((s) => s.name),
    ['queued'],
  );
  assert.equal(simpleExporter.getFinishedSpans().length, 1);
});

test('SDK _tracerOptions, _exporter, _finishedSpans gone: the accessors say undefined; the lean provider uses the SDK tracer', () => {
  const { tracerOptionsOf, spanProcessorExporterOf, finishedSpansOf } = compat('otel-sdk');
  assert.equal(tracerOptionsOf({}), undefined);
  assert.equal(tracerOptionsOf({ _tracerOptions: { spanProcessor: {} } }), undefined);
  assert.equal(spanProcessorExporterOf({ _exporter: {} }), undefined);
  assert.equal(finishedSpansOf({}), undefined);
  const { LeanTracerProvider } = require(dist('provider/lean-tracer-provider.js'));
  const lean = new LeanTracerProvider();
  assert.equal(lean.getTracer('t').constructor.name, 'LeanTracer');
  const provider = new LeanTracerProvider();
  // Renamed in a future SDK: simulated by options that lack what tracehook checks (the SDK's own tracer still reads them).
  const { idGenerator, ...rest } = provider._tracerOptions;
  provider._tracerOptions = rest;
  assert.equal(provider.getTracer('t').constructor.name, 'Tracer', "the SDK's own");
  const { watchHookExporters } = require(dist('preload/hook-exporters.js'));
  watchHookExporters({ _activeSpanProcessor: { onEnd() {}, _spanProcessors: [{ onEnd() {} }] } });
});

test('@opentelemetry/instrumentation: RequireInTheMiddleSingleton._instance._moduleNameTrie lists each registered module', () => {
  const out = runNode(`
    const { RITM_SINGLETON_FILE, moduleNameTrieOf } = compat('otel-instrumentation');
    const { InstrumentationBase, InstrumentationNodeModuleDefinition } = require('@opentelemetry/instrumentation');
    const file = () => Object.keys(require.cache).find((f) => f.endsWith(RITM_SINGLETON_FILE));
    const before = file() === undefined ? undefined : moduleNameTrieOf(require.cache[file()].exports);
    class I extends InstrumentationBase { init() { return [new InstrumentationNodeModuleDefinition('compat-test-module', ['*'])]; } }
    new I('compat-test', '1.0.0', {});
    const trie = moduleNameTrieOf(require.cache[file()].exports);
    console.log(JSON.stringify([before, trie.search('compat-test-module').length > 0, trie.search('other-module').length]));`);
  assert.deepEqual(JSON.parse(out), [null, true, 0]);
});

test('@opentelemetry/instrumentation: RequireInTheMiddleSingleton._instance is unset until the first instrumentation, then set', () => {
  const out = runNode(`
    const { hasRequireHookInstance } = compat('otel-instrumentation');
    const { RequireInTheMiddleSingleton } = require(require.resolve('@opentelemetry/instrumentation').replace(/index[.]js$/, 'platform/node/RequireInTheMiddleSingleton.js'));
    const before = hasRequireHookInstance(RequireInTheMiddleSingleton);
    const Module = require('node:module');
    const below = Module.prototype.require;
    RequireInTheMiddleSingleton.getInstance();
    console.log(JSON.stringify([before, hasRequireHookInstance(RequireInTheMiddleSingleton), Module.prototype.require !== below]));`);
  // require-gate.ts gates only a hook it saw made: unset before, set after, and getInstance() replaced require.
  assert.deepEqual(JSON.parse(out), [false, true, true]);
});

test('RequireInTheMiddleSingleton._instance gone: the gate reads "no instance" and relies on its second check', () => {
  const { hasRequireHookInstance } = compat('otel-instrumentation');
  assert.equal(hasRequireHookInstance(class {}), false);
  assert.equal(hasRequireHookInstance(undefined), false);
});

test('RequireInTheMiddleSingleton internals gone: the accessor says undefined', () => {
  const { moduleNameTrieOf } = compat('otel-instrumentation');
  assert.equal(moduleNameTrieOf(undefined), undefined);
  assert.equal(moduleNameTrieOf({ RequireInTheMiddleSingleton: {} }), undefined);
  assert.equal(moduleNameTrieOf({ RequireInTheMiddleSingleton: { _instance: { _moduleNameTrie: {} } } }), undefined);
});

test('process._eval: set for node -e and node -p, unset for a script; appDirectory is the working directory under -e', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-compat-'));
  const probe = `JSON.stringify([require(${JSON.stringify(dist('compat/node-process.js'))}).isEvalRun(), require(${JSON.stringify(dist('startup-hook/resolve-from-app.js'))}).appDirectory()])`;
  const run = (args) => execFileSync(process.execPath, args, { encoding: 'utf8', cwd: dir }).trim();
  assert.deepEqual(JSON.parse(run(['-e', `console.log(${probe})`, '/elsewhere/arg'])), [true, dir]);
  assert.deepEqual(JSON.parse(run(['-p', probe])), [true, dir]);
  writeFileSync(join(dir, 'script.js'), `console.log(${probe});\n`);
  assert.deepEqual(JSON.parse(run([join(dir, 'script.js')])), [false, dir]);
});

test('process._eval gone: isEvalRun is false and appDirectory takes the first argument', () => {
  const { isEvalRun } = compat('node-process');
  assert.equal(isEvalRun({}), false);
  const code = `delete process._eval;
    const { appDirectory } = require(${JSON.stringify(dist('startup-hook/resolve-from-app.js'))});
    console.log(appDirectory());`;
  const out = execFileSync(process.execPath, ['-e', code, '/elsewhere/arg'], { encoding: 'utf8' }).trim();
  assert.equal(out, '/elsewhere');
});

test("@koa/router: ctx._matchedRoute is the matched route's template when the route's first middleware runs", async () => {
  const { matchedRouteOf } = compat('koa-router');
  const Koa = require('koa');
  const Router = require('@koa/router');
  const app = new Koa();
  const router = new Router();
  let seen;
  router.get('/users/:id', (ctx) => {
    seen = matchedRouteOf(ctx);
    ctx.body = 'ok';
  });
  app.use(router.routes());
  const http = require('node:http');
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${server.address().port}/users/42`);
    assert.equal(await res.text(), 'ok');
  } finally {
    server.close();
  }
  assert.equal(seen, '/users/:id');
});

test('@koa/router ctx._matchedRoute gone: the accessor says undefined (no http.route from the router)', () => {
  const { matchedRouteOf } = compat('koa-router');
  assert.equal(matchedRouteOf({}), undefined);
  assert.equal(matchedRouteOf(undefined), undefined);
  assert.equal(matchedRouteOf({ _matchedRoute: 1 }), undefined);
});

test("SDK: a processor put into _activeSpanProcessor._spanProcessors after the provider is made sees each span's start and end", () => {
  const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-base');
  const { spanProcessorListOf } = compat('otel-sdk');
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
  const tracer = provider.getTracer('t');
  const seen = [];
  spanProcessorListOf(provider).unshift({ onStart: (s) => seen.push(['start', s.name]), onEnd: (s) => seen.push(['end', s.name]), forceFlush: async () => {}, shutdown: async () => {} });
  tracer.startSpan('s').end();
  assert.deepEqual(seen, [
    ['start', 's'],
    ['end', 's'],
  ]);
  const { trackHookOpenSpans } = require(dist('preload/hook-open-spans.js'));
  const other = new BasicTracerProvider();
  assert.equal(trackHookOpenSpans(other), true);
  assert.equal(trackHookOpenSpans(other), true);
  assert.equal(spanProcessorListOf(other).length, 1, 'one OpenSpanProcessor, not two');
});

test('SDK _spanProcessors gone: open spans of a hook provider are not tracked, without a throw', () => {
  const { trackHookOpenSpans } = require(dist('preload/hook-open-spans.js'));
  assert.equal(trackHookOpenSpans({ forceFlush: async () => {} }), false);
  assert.equal(trackHookOpenSpans({ forceFlush: async () => {}, _activeSpanProcessor: { onEnd() {} } }), false);
});
