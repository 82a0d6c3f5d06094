// Unit tests of the worker_threads envelope (dist/workers/protocol.js, called directly): what an instrumented
// sender posts around the user's value is two keys and one string (issue 30: each key and string costs the
// structured clone), and the receiver reads the channel's secret, the message id and either carrier form back
// from a structured clone of it; ids of a lone traceparent are checked once, there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENVELOPE_KEY, envelopeCarrier, envelopeHeader, envelopeId, isEnvelope, isHeaderOf, makeEnvelope, parseValidTraceparent } from '../../dist/workers/protocol.js';

const SECRET = '0123456789abcdef0123456789abcdef';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test('an envelope is two keys, one string, and reads back after a structured clone (compact carrier)', () => {
  const value = { user: 'data', list: [1, 2] };
  const sent = makeEnvelope(envelopeHeader(SECRET, TRACEPARENT, '12-0-7'), value);
  assert.deepEqual(Object.keys(sent).sort(), [ENVELOPE_KEY, 'value'].sort());
  assert.equal(typeof sent[ENVELOPE_KEY], 'string');
  const got = structuredClone(sent);
  assert.ok(isEnvelope(got, SECRET));
  const header = got[ENVELOPE_KEY];
  assert.equal(envelopeId(header, SECRET), '12-0-7');
  assert.equal(envelopeCarrier(header, SECRET), TRACEPARENT);
  assert.deepEqual(got.value, value);
});

test("an envelope carries the propagators' fields when a lone traceparent would not say all", () => {
  const carrier = { traceparent: TRACEPARENT, tracestate: 'k=v', baggage: 'a=1' };
  const header = structuredClone(makeEnvelope(envelopeHeader(SECRET, carrier, '1-2-3'), 0))[ENVELOPE_KEY];
  assert.deepEqual(envelopeCarrier(header, SECRET), carrier);
  assert.equal(envelopeId(header, SECRET), '1-2-3');
});

test("another channel's envelope, or an app value shaped like one, is not an envelope of this channel", () => {
  const other = makeEnvelope(envelopeHeader('f'.repeat(32), TRACEPARENT, '1-0-1'), 1);
  assert.equal(isEnvelope(other, SECRET), false);
  assert.equal(isEnvelope({ [ENVELOPE_KEY]: SECRET, value: 1 }, SECRET), false, 'the secret alone');
  assert.equal(isEnvelope({ [ENVELOPE_KEY]: 1, value: 1 }, SECRET), false);
  assert.equal(isEnvelope('text', SECRET), false);
  assert.equal(isEnvelope(null, SECRET), false);
  // An unreadable carrier is no carrier (the message still reaches the app, untraced).
  assert.equal(envelopeCarrier(`${SECRET}1-0-1 {not json`, SECRET), undefined);
  assert.equal(envelopeCarrier(`${SECRET}1-0-1 {"traceparent":1}`, SECRET), undefined);
});

test('parseValidTraceparent: one check of the ids (lowercase hex, not all zero) and the flags', () => {
  assert.deepEqual(parseValidTraceparent(TRACEPARENT), { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: true });
  assert.equal(parseValidTraceparent(TRACEPARENT.replace('4bf9', '4BF9')), undefined);
  assert.equal(parseValidTraceparent(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`), undefined);
  assert.equal(parseValidTraceparent(`00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`), undefined);
  assert.equal(parseValidTraceparent(TRACEPARENT.replace(/-01$/, '-02')), undefined);
  assert.equal(parseValidTraceparent(TRACEPARENT.replace('00f0', '00g0')), undefined);
});

test("a pool task's carrier is one string of the same form, read by the same functions", () => {
  const carried = structuredClone({ taskId: 1, task: 'x', '@tracehook/task': envelopeHeader(SECRET, TRACEPARENT, '5-0-9') })['@tracehook/task'];
  assert.ok(isHeaderOf(carried, SECRET));
  assert.equal(isHeaderOf({ secret: SECRET, carrier: TRACEPARENT, id: '5-0-9' }, SECRET), false, 'an object shaped like the old carrier');
  assert.equal(envelopeCarrier(carried, SECRET), TRACEPARENT);
  assert.equal(envelopeId(carried, SECRET), '5-0-9');
});
