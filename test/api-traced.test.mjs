// traced(): every function kind, options, generators ending exactly when consumption ends, and
// the TC39 @traced() decorator compiled by TypeScript in strict mode.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { currentSpan, traced, TRACER_NAME, TRACER_VERSION } from '@tracehook/register/api';
import { finished, ids, only, reset, sleep } from './helpers/api-provider.mjs';

const ROOT = new URL('..', import.meta.url);
const isEnded = (name) => finished().some((s) => s.name === name);

test('sync and async functions: this, arguments and return value pass through', async () => {
  reset();
  const receiver = { factor: 3 };
  const scale = traced('scale', function (a, b) {
    return { product: this.factor * a * b, self: this };
  });
  const result = scale.call(receiver, 2, 5);
  assert.equal(result.product, 30);
  assert.equal(result.self, receiver);

  const value = { big: 'object' };
  const fetchIt = traced(async function fetchIt(x) {
    await sleep(1);
    return x;
  });
  assert.equal(await fetchIt(value), value);
  assert.equal(fetchIt.name, 'fetchIt');
  assert.equal(fetchIt.length, 1);
  const errorMiddleware = traced('mw', (err, req, res, next) => next);
  assert.equal(errorMiddleware.length, 4, 'Express reads length to find error middleware');

  class Point {
    constructor(x) {
      this.x = x;
    }
  }
  const TracedPoint = traced('new Point', Point);
  const p = new TracedPoint(7);
  assert.ok(p instanceof Point);
  assert.ok(p instanceof TracedPoint);
  assert.equal(p.x, 7);

  assert.deepEqual(
    finished()
      .map((s) => s.name)
      .sort(),
    ['fetchIt', 'new Point', 'scale'],
  );
  const span = only('scale');
  assert.equal(span.instrumentationScope.name, TRACER_NAME);
  assert.equal(TRACER_NAME, '@tracehook/register');
  assert.equal(span.instrumentationScope.version, JSON.parse(readFileSync(new URL('package.json', ROOT))).version);
  assert.equal(span.instrumentationScope.version, TRACER_VERSION);
  assert.equal(span.kind, SpanKind.INTERNAL);
  assert.equal(span.status.code, SpanStatusCode.UNSET);
});

test('an async span ends before the caller resumes, and a rejection is the same error', async () => {
  reset();
  const slow = traced('slow', async () => {
    await sleep(5);
    return 1;
  });
  const pending = slow();
  assert.equal(isEnded('slow'), false);
  await pending;
  assert.equal(isEnded('slow'), true);

  const err = new RangeError('bad');
  const failing = traced('failing', async () => Promise.reject(err));
  await assert.rejects(failing(), (e) => e === err);
  assert.deepEqual(only('failing').status, { code: SpanStatusCode.ERROR, message: 'bad' });
});

test('options: name, kind, attributes, attributesFromArgs, root, links', async () => {
  reset();
  const linkTarget = trace.getTracer('t').startSpan('link-target');
  linkTarget.end();
  const handle = traced(
    {
      name: 'handle',
      kind: SpanKind.SERVER,
      attributes: { fixed: 'yes', overridden: 'no' },
      attributesFromArgs: (user, n) => ({ user, n, overridden: 'by args' }),
      links: (user) => [{ context: linkTarget.spanContext(), attributes: { user } }],
    },
    (user, n) => `${user}:${n}`,
  );
  const fresh = traced({ name: 'fresh', root: true }, () => currentSpan().spanContext().traceId);
  const broken = traced(
    {
      name: 'broken',
      attributes: { a: 1 },
      attributesFromArgs: () => {
        throw new Error('oops');
      },
    },
    () => 'still runs',
  );

  let outerTrace;
  await traced('outer', async () => {
    outerTrace = currentSpan().spanContext().traceId;
    assert.equal(handle('ada', 2), 'ada:2');
    assert.notEqual(fresh(), outerTrace);
    assert.equal(broken(), 'still runs');
  })();

  const span = only('handle');
  assert.equal(span.kind, SpanKind.SERVER);
  assert.deepEqual(
    { ...span.attributes, 'process.pid': undefined, 'thread.id': undefined },
    { fixed: 'yes', overridden: 'by args', user: 'ada', n: 2, 'process.pid': undefined, 'thread.id': undefined },
  );
  assert.equal(span.links.length, 1);
  assert.equal(span.links[0].context.spanId, linkTarget.spanContext().spanId);
  assert.equal(span.links[0].attributes.user, 'ada');
  assert.equal(ids(span).parentId, ids(only('outer')).spanId);

  const root = only('fresh');
  assert.equal(root.parentSpanContext, undefined);
  assert.notEqual(root.spanContext().traceId, outerTrace);
  assert.equal(only('broken').attributes.a, 1);
});

test('async generators end their span exactly when consumption ends: exhausted, return(), throw', async () => {
  reset();
  const stream = traced('stream', async function* (n) {
    const own = currentSpan();
    try {
      for (let i = 0; i < n; i++) {
        await sleep(1);
        assert.equal(currentSpan(), own, 'each step runs inside the generator span');
        await traced('item', async () => {})();
        yield i;
      }
    } finally {
      await traced('cleanup', async () => {})();
    }
  });

  // Exhausted.
  const all = stream(3);
  assert.deepEqual(await all.next(), { value: 0, done: false });
  assert.equal(isEnded('stream'), false);
  await all.next();
  await all.next();
  assert.equal(isEnded('stream'), false, 'still open while the consumer may ask for more');
  assert.deepEqual(await all.next(), { value: undefined, done: true });
  assert.equal(finished().filter((s) => s.name === 'stream').length, 1);

  // return(): a `break` out of for await.
  reset();
  for await (const v of stream(10)) {
    if (v === 1) {
      assert.equal(isEnded('stream'), false);
      break;
    }
  }
  assert.equal(isEnded('stream'), true);
  const stopped = only('stream');
  assert.equal(stopped.status.code, SpanStatusCode.UNSET);
  assert.equal(finished().filter((s) => s.name === 'item').length, 2);
  assert.equal(ids(only('cleanup')).parentId, ids(stopped).spanId, 'the finally block runs inside the span');

  // throw() from the consumer.
  reset();
  const thrown = stream(10);
  await thrown.next();
  const err = new Error('consumer gave up');
  await assert.rejects(thrown.throw(err), (e) => e === err);
  assert.deepEqual(only('stream').status, { code: SpanStatusCode.ERROR, message: 'consumer gave up' });

  // The body throws.
  reset();
  const failing = traced('failing-stream', async function* () {
    yield 1;
    throw new Error('producer failed');
  })();
  await failing.next();
  assert.equal(isEnded('failing-stream'), false);
  await assert.rejects(failing.next(), /producer failed/);
  assert.deepEqual(only('failing-stream').status, { code: SpanStatusCode.ERROR, message: 'producer failed' });
  assert.equal(only('failing-stream').events[0].name, 'exception');
});

test('sync generators end their span when exhausted, return()ed or throwing; children nest inside', () => {
  reset();
  const rows = traced('rows', function* () {
    for (let i = 0; i < 5; i++) {
      traced('row', () => {})();
      yield i;
    }
    return 'end';
  });
  const it = rows();
  assert.deepEqual(it.next(), { value: 0, done: false });
  assert.equal(isEnded('rows'), false);
  assert.equal(currentSpan(), undefined, 'between steps the generator span is not current');
  assert.deepEqual([...it], [1, 2, 3, 4]);
  assert.equal(isEnded('rows'), true);
  const span = only('rows');
  for (const row of finished().filter((s) => s.name === 'row')) assert.equal(ids(row).parentId, ids(span).spanId);

  reset();
  const early = rows();
  early.next();
  assert.deepEqual(early.return('stop'), { value: 'stop', done: true });
  assert.equal(isEnded('rows'), true);

  reset();
  const failing = rows();
  failing.next();
  assert.throws(() => failing.throw(new Error('nope')), /nope/);
  assert.equal(only('rows').status.code, SpanStatusCode.ERROR);

  reset();
  const never = rows();
  assert.deepEqual(never.return(undefined), { value: undefined, done: true });
  assert.equal(isEnded('rows'), true, 'return() before the first next() ends the span');
});

test('@traced() TC39 decorator: type-checks under strict TypeScript and traces methods', async (t) => {
  const { default: ts } = await import('typescript');
  const fixture = join(ROOT.pathname, 'test', 'fixtures', 'api-decorator.ts');
  // Emitted under node_modules/.cache so that its @opentelemetry imports resolve as the repo's do.
  const cache = join(ROOT.pathname, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, 'tracehook-decorator-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const program = ts.createProgram([fixture], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    rootDir: join(ROOT.pathname, 'test', 'fixtures'),
    outDir: out,
    skipLibCheck: true,
    types: [],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT.pathname, getNewLine: () => '\n' };
  assert.equal(ts.formatDiagnostics(diagnostics, host), '');
  program.emit();
  // Self-reference does not work under node_modules: point that one import at the built file.
  const api = pathToFileURL(join(ROOT.pathname, 'dist', 'api.js')).href;
  const js = readFileSync(join(out, 'api-decorator.js'), 'utf8').replace(/(['"])@tracehook\/register\/api\1/g, `'${api}'`);
  const compiled = join(out, 'api-decorator.mjs');
  writeFileSync(compiled, js);
  const { Service, Sub, add, lengthOf } = await import(pathToFileURL(compiled).href);

  reset();
  const service = Service.create();
  assert.equal(service.scale(4), 8);
  assert.equal(new Sub(3).scale(2), 6);
  const loadedIn = await service.load('42');
  assert.deepEqual([...service.count(3)], [0, 2, 4]);
  assert.equal(add(1, 2), 3);
  assert.equal(await lengthOf('abcd'), 4);

  assert.deepEqual(
    finished()
      .map((s) => s.name)
      .sort(),
    ['Service.count', 'Service.create', 'Service.load', 'Service.scale', 'Sub.scale', 'add', 'anonymous'].sort(),
  );
  const load = only('Service.load');
  assert.equal(load.spanContext().spanId, loadedIn, 'the method body runs inside its span');
  assert.equal(load.kind, SpanKind.SERVER);
  assert.equal(load.attributes.id, '42');
  assert.equal(only('anonymous').attributes.s, 'abcd');
});
