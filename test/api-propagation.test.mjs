// injectContext/extractContext round-trip trace id, span id, flags, tracestate and baggage through
// every carrier kind (plain object, HTTP headers, gRPC Metadata, environment), with fast-check.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { test } from 'node:test';
import { Metadata } from '@grpc/grpc-js';
import { context, createTraceState, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import fc from 'fast-check';
import { envCarrier, extractContext, injectContext, traced } from '@tracehook/register/api';
import { contextFromCarrier, injectToCarrier } from '../dist/propagation/carrier-record.js';
import './helpers/api-provider.mjs';

const hex = (length) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length }).filter((s) => /[^0]/.test(s));
const KEY_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789_-*/';
const VALUE_CHARS = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).filter((c) => c !== ',' && c !== '=');
const tracestateKey = fc.tuple(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), fc.string({ unit: fc.constantFrom(...KEY_CHARS), maxLength: 10 })).map(([first, rest]) => first + rest);
const tracestateValue = fc.string({ unit: fc.constantFrom(...VALUE_CHARS), minLength: 1, maxLength: 16 });

/** A random valid propagated state: span context, tracestate members, baggage entries. */
const stateArb = fc.record({
  traceId: hex(32),
  spanId: hex(16),
  traceFlags: fc.constantFrom(0, 1, 2, 3),
  tracestate: fc.uniqueArray(fc.tuple(tracestateKey, tracestateValue), { selector: ([k]) => k, maxLength: 8 }),
  baggage: fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 })), { selector: ([k]) => k, maxLength: 5 }),
});

function toContext(state) {
  const traceState = state.tracestate.length ? createTraceState(state.tracestate.map(([k, v]) => `${k}=${v}`).join(',')) : undefined;
  let ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId: state.traceId, spanId: state.spanId, traceFlags: state.traceFlags, traceState });
  if (state.baggage.length) ctx = propagation.setBaggage(ctx, propagation.createBaggage(Object.fromEntries(state.baggage.map(([k, v]) => [k, { value: v }]))));
  return ctx;
}

function assertSameState(extracted, state) {
  const sc = trace.getSpanContext(extracted);
  assert.ok(sc, 'a span context was extracted');
  assert.deepEqual(
    { traceId: sc.traceId, spanId: sc.spanId, traceFlags: sc.traceFlags, isRemote: sc.isRemote },
    { traceId: state.traceId, spanId: state.spanId, traceFlags: state.traceFlags, isRemote: true },
  );
  const expectedState = state.tracestate.map(([k, v]) => `${k}=${v}`).join(',');
  assert.equal(sc.traceState?.serialize() ?? '', expectedState, 'tracestate kept');
  const baggage =
    propagation
      .getBaggage(extracted)
      ?.getAllEntries()
      .map(([k, e]) => [k, e.value]) ?? [];
  assert.deepEqual(Object.fromEntries(baggage), Object.fromEntries(state.baggage), 'baggage kept');
}

test('plain object carrier round-trips random states', () => {
  fc.assert(
    fc.property(stateArb, (state) => {
      const carrier = injectContext({}, toContext(state));
      assert.match(carrier.traceparent, new RegExp(`^00-${state.traceId}-${state.spanId}-0${state.traceFlags}$`));
      assertSameState(extractContext(carrier, ROOT_CONTEXT), state);
    }),
    { numRuns: 200 },
  );
});

test('HTTP header objects: any case of the names, array values', () => {
  fc.assert(
    fc.property(stateArb, fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), (state, upper) => {
      const injected = injectContext({}, toContext(state));
      const headers = {};
      Object.entries(injected).forEach(([name, value], i) => {
        const cased = upper[i % 3] ? name.toUpperCase() : name[0].toUpperCase() + name.slice(1);
        // Node's headersDistinct shape: every value an array; tracestate/baggage split over lines.
        headers[cased] = name === 'traceparent' ? [value] : value.split(',');
      });
      assertSameState(extractContext(headers, ROOT_CONTEXT), state);
    }),
    { numRuns: 200 },
  );
});

test('gRPC Metadata (@grpc/grpc-js) round-trips random states', () => {
  fc.assert(
    fc.property(stateArb, (state) => {
      const metadata = injectContext(new Metadata(), toContext(state));
      assert.ok(metadata instanceof Metadata);
      assert.deepEqual(metadata.get('traceparent'), [`00-${state.traceId}-${state.spanId}-0${state.traceFlags}`]);
      assertSameState(extractContext(metadata, ROOT_CONTEXT), state);
    }),
    { numRuns: 200 },
  );
});

test('environment carrier: TRACEPARENT/TRACESTATE/BAGGAGE in the given object only', () => {
  const before = JSON.stringify(process.env);
  fc.assert(
    fc.property(stateArb, (state) => {
      const env = { PATH: '/bin' };
      injectContext(envCarrier(env), toContext(state));
      const expected = ['PATH', 'TRACEPARENT', ...(state.tracestate.length ? ['TRACESTATE'] : []), ...(state.baggage.length ? ['BAGGAGE'] : [])];
      assert.deepEqual(Object.keys(env).sort(), expected.sort());
      assertSameState(extractContext(envCarrier(env), ROOT_CONTEXT), state);
    }),
    { numRuns: 200 },
  );
  assert.equal(JSON.stringify(process.env), before, 'process.env untouched');
});

test('a real HTTP request carries the context (req.headers and req.headersDistinct)', async (t) => {
  const state = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: 1,
    tracestate: [
      ['congo', 't61rcWkgMzE'],
      ['rojo', '00f067aa0ba902b7'],
    ],
    baggage: [
      ['user', 'ada lovelace'],
      ['tenant', 'ü'],
    ],
  };
  const received = [];
  const server = createServer((req, res) => {
    received.push(extractContext(req.headers, ROOT_CONTEXT), extractContext(req.headersDistinct, ROOT_CONTEXT));
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const headers = injectContext({ 'content-type': 'text/plain' }, toContext(state));
  const req = request({ host: '127.0.0.1', port: server.address().port, headers });
  req.end();
  const [res] = await once(req, 'response');
  res.resume();
  await once(res, 'end');
  assert.equal(received.length, 2);
  for (const ctx of received) assertSameState(ctx, state);
});

test('injectContext replaces stale fields of a reused carrier, and leaves it alone when there is nothing to inject', () => {
  const stale = { TraceParent: '00-11111111111111111111111111111111-2222222222222222-01', Tracestate: 'old=1', baggage: 'old=1', other: 'kept' };
  const untouched = injectContext({ ...stale }, ROOT_CONTEXT);
  assert.deepEqual(untouched, stale);

  const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 });
  const replaced = injectContext({ ...stale }, ctx);
  assert.deepEqual(replaced, { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, other: 'kept' });

  const env = { TRACEPARENT: stale.TraceParent, TRACESTATE: 'old=1', BAGGAGE: 'old=1' };
  injectContext(envCarrier(env), ctx);
  assert.deepEqual(env, { TRACEPARENT: replaced.traceparent });

  const metadata = new Metadata();
  metadata.set('tracestate', 'old=1');
  injectContext(metadata, ctx);
  assert.deepEqual(metadata.get('tracestate'), []);
});

test('injectContext/extractContext default to the active context; invalid input changes nothing', async () => {
  assert.deepEqual(injectContext(), {});
  await traced('active', () => {
    const active = context.active();
    const carrier = injectContext();
    assert.equal(carrier.traceparent.split('-')[2], trace.getSpan(active).spanContext().spanId);
    assert.equal(extractContext({}), active);
    assert.equal(extractContext({ traceparent: 'garbage' }), active);
    assert.equal(extractContext(null), active);
  })();
});

test('internal carrier helpers for workers: injectToCarrier / contextFromCarrier', async () => {
  assert.equal(injectToCarrier(ROOT_CONTEXT), undefined);
  assert.equal(injectToCarrier(), undefined, 'nothing active: nothing to inject');
  assert.equal(contextFromCarrier(undefined), ROOT_CONTEXT);
  await traced('sender', () => {
    const carrier = injectToCarrier();
    assert.deepEqual(Object.keys(carrier), ['traceparent']);
    assert.deepEqual(structuredClone(carrier), carrier);
    const sc = trace.getSpanContext(contextFromCarrier(carrier));
    assert.equal(sc.spanId, trace.getActiveSpan().spanContext().spanId);
    assert.equal(contextFromCarrier({}), ROOT_CONTEXT, 'built on ROOT_CONTEXT, not on the active span');
  })();
});
