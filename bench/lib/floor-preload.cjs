// The floor: the least a tracer can do for each goal row, to print how far tracehook is from it. NOT a product:
// no sampling, no limits, no error handling beyond not breaking the bench apps, no config. `--require`d (so it
// also runs in every worker thread, whose execArgv it inherits), it does what issue 30's prototype did:
// - ids from a pooled random buffer (hex substrings of one `randomFillSync`);
// - context in one AsyncLocalStorage: a SERVER context per incoming HTTP request (diagnostics_channel
//   `http.server.request.start`, entered with `enterWith`), and on each message received with a carrier one
//   `als.run` around its dispatch (`enterWith` on piscina's `receiveMessageOnPort` path, which has no dispatch);
// - the carrier: a `traceparent` string in a 2-key wrapper `{ [KEY]: traceparent, v: message }`, added by
//   `MessagePort.prototype.postMessage` (which `Worker.prototype.postMessage` calls) when a context is active. As
//   tracehook does: every message of the main thread, and a worker's messages on `parentPort` (replies), not a
//   worker's replies on other ports (piscina's task results); a piscina task is carried from `Piscina#run` in
//   its task field (the pool posts queued tasks later, outside the caller's context);
// - spans as plain records (SERVER per request, PRODUCER per send, CONSUMER per receipt).
// BENCH_FLOOR selects the level: `context` (carrier and context only), `records` (+ a span record per crossing
// and request, kept in a batch of 64 then dropped), `export` (+ each record JSON-encoded as it ends, one
// synchronous write of the 64 lines to a file in BENCH_FLOOR_DIR, `floor-<pid>-<threadId>.jsonl`).
'use strict';
const { AsyncLocalStorage } = require('node:async_hooks');
const { randomFillSync } = require('node:crypto');
const dc = require('node:diagnostics_channel');
const fs = require('node:fs');
const path = require('node:path');
const wt = require('node:worker_threads');

const LEVEL = process.env.BENCH_FLOOR ?? 'records';
const RECORDS = LEVEL !== 'context';
const EXPORT = LEVEL === 'export';
const BATCH = 64;
const KEY = '__floor_tp';
const als = new AsyncLocalStorage();

// Ids: hex substrings of a pooled random buffer, refilled when used up.
const POOL = Buffer.allocUnsafe(4096);
let hex = '';
let at = 0;
function id(chars) {
  if (at + chars > hex.length) {
    hex = randomFillSync(POOL).toString('hex');
    at = 0;
  }
  return hex.slice(at, (at += chars));
}

// Span records: kept in a batch; at `export`, each line is encoded as the span ends and the batch written at once.
const origin = performance.timeOrigin;
let batch = [];
let fd = -1;
function end(record) {
  record.end = origin + performance.now();
  if (!EXPORT) {
    batch.push(record);
    if (batch.length >= BATCH) batch = [];
    return;
  }
  batch.push(JSON.stringify(record));
  if (batch.length >= BATCH) flush();
}
function flush() {
  if (!EXPORT || batch.length === 0) return;
  if (fd < 0) fd = fs.openSync(path.join(process.env.BENCH_FLOOR_DIR ?? require('node:os').tmpdir(), `floor-${process.pid}-${wt.threadId}.jsonl`), 'a');
  fs.writeSync(fd, batch.join('\n') + '\n');
  batch = [];
}
process.on('exit', flush);

const record = (traceId, spanId, parentSpanId, name, kind) => ({ traceId, spanId, parentSpanId, name, kind, start: origin + performance.now(), end: 0, attributes: {} });

// HTTP: a SERVER context (and record) per request, ended when the response has been sent.
const kRecord = Symbol('floor.server');
dc.subscribe('http.server.request.start', ({ request, response }) => {
  const tp = request.headers.traceparent;
  const traceId = typeof tp === 'string' && tp.length === 55 ? tp.slice(3, 35) : id(32);
  const spanId = id(16);
  als.enterWith({ traceId, spanId });
  if (RECORDS) {
    const r = record(traceId, spanId, typeof tp === 'string' && tp.length === 55 ? tp.slice(36, 52) : undefined, request.method, 2);
    r.attributes['url.path'] = request.url;
    response[kRecord] = r;
  }
});
dc.subscribe('http.server.response.finish', ({ response }) => {
  const r = response[kRecord];
  if (r === undefined) return;
  r.attributes['http.response.status_code'] = response.statusCode;
  end(r);
});

// Messages: the carrier on send, the context (and a CONSUMER record) on receipt.
const carried = (m) => m !== null && typeof m === 'object' && typeof m[KEY] === 'string';
/** A piscina task request whose task was wrapped by `run()`: carried already, by the task field. */
const poolTask = (m) => m !== null && typeof m === 'object' && carried(m.task);
function carry(message) {
  const ctx = als.getStore();
  if (ctx === undefined || poolTask(message)) return message;
  if (!RECORDS) return { [KEY]: `00-${ctx.traceId}-${ctx.spanId}-01`, v: message };
  const r = record(ctx.traceId, id(16), ctx.spanId, 'send', 4);
  end(r);
  return { [KEY]: `00-${r.traceId}-${r.spanId}-01`, v: message };
}
/** The context a carrier names: at `records` and above a CONSUMER span's, whose record `start` opens. */
function consumer(tp) {
  const traceId = tp.slice(3, 35);
  if (!RECORDS) return { ctx: { traceId, spanId: tp.slice(36, 52) }, r: undefined };
  const r = record(traceId, id(16), tp.slice(36, 52), 'process', 5);
  return { ctx: { traceId, spanId: r.spanId }, r };
}
/** Runs fn() in the context of carrier `tp`, with its CONSUMER record around it at `records` and above. */
function receive(tp, fn) {
  const { ctx, r } = consumer(tp);
  if (r === undefined) return als.run(ctx, fn);
  try {
    return als.run(ctx, fn);
  } finally {
    end(r);
  }
}
/** Unwraps a received message (or a pool request's task) and runs fn(message) in its context. */
function dispatch(value, fn, self) {
  if (carried(value)) return receive(value[KEY], () => fn.call(self, value.v));
  if (poolTask(value)) {
    const tp = value.task[KEY];
    value.task = value.task.v;
    return receive(tp, () => fn.call(self, value));
  }
  return fn.call(self, value);
}

// Worker.prototype.postMessage hands its arguments to its public MessagePort's postMessage: patched once, here.
const portPost = wt.MessagePort.prototype.postMessage;
wt.MessagePort.prototype.postMessage = function postMessage(message, transfer) {
  return portPost.call(this, wt.isMainThread || this === wt.parentPort ? carry(message) : message, transfer);
};

// A Worker re-emits its public port's messages with `emit('message', value)` (unwrapped by then: the port's
// listener below has run; this is for a Node.js whose Worker does it otherwise).
const workerEmit = wt.Worker.prototype.emit;
wt.Worker.prototype.emit = function emit(event, value, ...rest) {
  if (event === 'message' && carried(value)) return dispatch(value, (v) => workerEmit.call(this, event, v, ...rest), this);
  return workerEmit.call(this, event, value, ...rest);
};

// MessagePort (parentPort, a channel's ports): its `on('message', fn)` listeners get the value.
const wrapped = new WeakMap();
const listener = (fn) => {
  if (typeof fn !== 'function') return fn;
  let w = wrapped.get(fn);
  if (w === undefined) {
    w = function onMessage(value) {
      return dispatch(value, fn, this);
    };
    wrapped.set(fn, w);
  }
  return w;
};
for (const method of ['on', 'addListener', 'once', 'prependListener']) {
  const orig = wt.MessagePort.prototype[method];
  if (typeof orig !== 'function') continue;
  wt.MessagePort.prototype[method] = function (event, fn) {
    return orig.call(this, event, event === 'message' ? listener(fn) : fn);
  };
}
for (const method of ['off', 'removeListener']) {
  const orig = wt.MessagePort.prototype[method];
  if (typeof orig !== 'function') continue;
  wt.MessagePort.prototype[method] = function (event, fn) {
    return orig.call(this, event, event === 'message' && wrapped.has(fn) ? wrapped.get(fn) : fn);
  };
}

// piscina reads tasks with receiveMessageOnPort: no dispatch to wrap, so the context is entered for what follows,
// as the pool runs the task right after (its CONSUMER record ends at once).
const receiveMessageOnPort = wt.receiveMessageOnPort;
wt.receiveMessageOnPort = function (port) {
  const entry = receiveMessageOnPort(port);
  if (entry === undefined) return entry;
  const m = entry.message;
  if (!carried(m) && !poolTask(m)) return entry;
  const tp = carried(m) ? m[KEY] : m.task[KEY];
  const { ctx, r } = consumer(tp);
  if (r !== undefined) end(r);
  als.enterWith(ctx);
  if (carried(m)) return { message: m.v };
  m.task = m.task.v;
  return entry;
};

// A piscina task: carried from `run()`, in the caller's context (the pool posts queued tasks later, from whatever
// context frees a thread). The carrier rides in the task field of the pool's request.
const Module = require('node:module');
const load = Module._load;
let poolPatched = false;
Module._load = function (request) {
  const exports = load.apply(this, arguments);
  if (!poolPatched && request === 'piscina') {
    poolPatched = true;
    const Piscina = exports.Piscina ?? exports;
    const run = Piscina.prototype.run;
    Piscina.prototype.run = function (task, options) {
      return run.call(this, carry(task), options);
    };
  }
  return exports;
};
