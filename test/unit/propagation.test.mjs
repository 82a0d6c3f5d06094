// Unit tests of src/propagation (the built dist/ modules, called directly): W3C traceparent,
// tracestate and baggage read from and written to the carriers tracehook accepts (header objects,
// Map/Headers/gRPC-Metadata-like objects, environment carriers), with W3C propagators registered as
// the preload registers them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROOT_CONTEXT, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { extractContext, injectContext } from '../../dist/propagation/inject-extract.js';
import { envCarrier, envVariableName } from '../../dist/propagation/env-carrier.js';

propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

const remote = (ctx) => trace.getSpanContext(ctx);

test('extractContext: a traceparent in a plain header object becomes the remote parent (ids, flags, tracestate)', () => {
  const sc = remote(extractContext({ traceparent: TRACEPARENT, tracestate: 'a=1,b=2' }, ROOT_CONTEXT));
  assert.equal(sc.traceId, TRACE_ID);
  assert.equal(sc.spanId, SPAN_ID);
  assert.equal(sc.traceFlags, TraceFlags.SAMPLED);
  assert.equal(sc.isRemote, true);
  assert.equal(sc.traceState.serialize(), 'a=1,b=2');
});

test('extractContext: header names match in any case; of several traceparent values the first counts, tracestate values are joined', () => {
  const other = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-00`;
  const sc = remote(extractContext({ TraceParent: [TRACEPARENT, other], TRACESTATE: ['a=1', 'b=2'] }, ROOT_CONTEXT));
  assert.equal(sc.traceId, TRACE_ID);
  assert.equal(sc.traceState.serialize(), 'a=1,b=2');
});

test('extractContext: an unsampled traceparent keeps flags 00', () => {
  const sc = remote(extractContext({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` }, ROOT_CONTEXT));
  assert.equal(sc.traceFlags, TraceFlags.NONE);
});

for (const [why, value] of [
  ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
  ['an all-zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
  ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
  ['a short trace id', `00-${TRACE_ID.slice(2)}-${SPAN_ID}-01`],
  ['not hex', `00-${'g'.repeat(32)}-${SPAN_ID}-01`],
  ['garbage', 'hello'],
]) {
  test(`extractContext: a traceparent with ${why} is ignored (the base context is returned)`, () => {
    assert.equal(remote(extractContext({ traceparent: value }, ROOT_CONTEXT)), undefined);
  });
}

test('extractContext: null, a string or an empty object give the base context', () => {
  for (const carrier of [null, undefined, 'traceparent', {}]) assert.equal(extractContext(carrier, ROOT_CONTEXT), ROOT_CONTEXT);
});

test('extractContext: a Map (a carrier with get/set methods) is read through its methods', () => {
  const sc = remote(extractContext(new Map([['traceparent', TRACEPARENT]]), ROOT_CONTEXT));
  assert.equal(sc.spanId, SPAN_ID);
});

test('envCarrier: TRACEPARENT/TRACESTATE/BAGGAGE map to and from the propagation keys', () => {
  assert.equal(envVariableName('traceparent'), 'TRACEPARENT');
  assert.equal(envVariableName('x-b3.id'), 'X_B3_ID');
  const env = { TRACEPARENT, TRACESTATE: 'k=v', BAGGAGE: 'user=alice', PATH: '/bin' };
  const ctx = extractContext(envCarrier(env), ROOT_CONTEXT);
  assert.equal(remote(ctx).traceId, TRACE_ID);
  assert.equal(remote(ctx).traceState.serialize(), 'k=v');
  assert.equal(propagation.getBaggage(ctx).getEntry('user').value, 'alice');
});

test('injectContext: writes traceparent for the active span context and removes a stale tracestate and baggage first', () => {
  const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
  const env = { TRACEPARENT: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, TRACESTATE: 'stale=1', BAGGAGE: 'stale=1', PATH: '/bin' };
  injectContext(envCarrier(env), parent);
  assert.deepEqual(env, { TRACEPARENT, PATH: '/bin' });
  const headers = { TraceState: 'stale=1', 'content-type': 'text/plain' };
  assert.equal(injectContext(headers, parent), headers);
  assert.deepEqual(headers, { traceparent: TRACEPARENT, 'content-type': 'text/plain' });
});

test('injectContext: with no span and no baggage the carrier is left untouched', () => {
  const env = { TRACEPARENT, TRACESTATE: 'k=v' };
  injectContext(envCarrier(env), ROOT_CONTEXT);
  assert.deepEqual(env, { TRACEPARENT, TRACESTATE: 'k=v' });
  assert.deepEqual(injectContext(undefined, ROOT_CONTEXT), {});
});
