// What a failed request's SERVER span records of its error (issue 33, item 1): as OpenTelemetry's recordException
// records it, bounded (message 1024, stack 4096 UTF-16 code units, cut at a line end). The spans are the SDK's own;
// test/route-errors.test.mjs checks the frameworks end to end.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const require = createRequire(import.meta.url);
const { EXCEPTION_MESSAGE_LIMIT, EXCEPTION_STACK_LIMIT, boundedException, markServerError } = require('../../dist/instrumentations/http/server-error.js');

function ended(record) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const span = provider.getTracer('t').startSpan('GET /x');
  record(span);
  span.end();
  return exporter.getFinishedSpans()[0];
}

test('a long message and a deep stack are cut: the message to 1024, the stack to 4096 at the end of a frame', () => {
  assert.equal(EXCEPTION_MESSAGE_LIMIT, 1024);
  assert.equal(EXCEPTION_STACK_LIMIT, 4096);
  const long = boundedException(new TypeError('x'.repeat(10_000)));
  assert.equal(long.name, 'TypeError');
  assert.equal(long.message.length, 1024);
  assert.equal(long.stack.length, 4096, 'no line end within the bound: cut at the bound');

  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 500;
  const deep = (n) => (n === 0 ? new RangeError('deep') : deep(n - 1));
  const err = deep(400);
  Error.stackTraceLimit = limit;
  assert.ok(err.stack.length > 4096);
  const cut = boundedException(err).stack;
  assert.ok(cut.length <= 4096 && cut.length > 3000, String(cut.length));
  assert.ok(err.stack.startsWith(`${cut}\n`), 'whole lines only');

  // Never half a surrogate pair: a lone one is not valid UTF-8.
  assert.equal(boundedException(new Error(`${'a'.repeat(1023)}😀`)).message, 'a'.repeat(1023));
});

test('a 5xx error: exception event as recordException writes it, status ERROR with the message, error.type the name', () => {
  const span = ended((s) => markServerError(s, Object.assign(new TypeError('boom: user 42 missing'), { secret: 'kept out' })));
  assert.deepEqual(span.status, { code: 2, message: 'boom: user 42 missing' });
  assert.equal(span.attributes['error.type'], 'TypeError');
  const [event] = span.events;
  assert.equal(event.name, 'exception');
  assert.equal(event.attributes['exception.type'], 'TypeError');
  assert.equal(event.attributes['exception.message'], 'boom: user 42 missing');
  assert.match(event.attributes['exception.stacktrace'], /^TypeError: boom: user 42 missing\n {4}at /);
  assert.deepEqual(Object.keys(event.attributes).sort(), ['exception.message', 'exception.stacktrace', 'exception.type']);
});

test("an error's code is its exception.type (as recordException does); thrown strings and objects; hostile errors never throw", () => {
  const coded = ended((s) => markServerError(s, Object.assign(new Error('bad body'), { code: 'FST_ERR_VALIDATION' })));
  assert.equal(coded.events[0].attributes['exception.type'], 'FST_ERR_VALIDATION');
  assert.equal(coded.attributes['error.type'], 'Error');

  const text = ended((s) => markServerError(s, 'y'.repeat(5000)));
  assert.equal(text.events[0].attributes['exception.message'].length, 1024);
  assert.equal(text.status.code, 2);

  const object = ended((s) => markServerError(s, { reason: 'nope' }));
  assert.equal(object.events[0].attributes['exception.type'], 'Object');

  const hostile = new Error('x');
  Object.defineProperty(hostile, 'stack', {
    get() {
      throw new Error('stack getter');
    },
  });
  const span = ended((s) => assert.doesNotThrow(() => markServerError(s, hostile)));
  assert.equal(span.events.length, 0, 'no event rather than a new error');
});
