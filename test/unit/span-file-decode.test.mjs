// Unit tests of the span-file line decoder (dist/span-file/decode.js, called directly): one line is
// one OTLP/JSON ExportTraceServiceRequest; ids, kinds, status, times, attributes, events and links
// decode to flat records, and malformed lines throw the documented errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeId, decodeSpanLine, skipReason } from '../../dist/span-file/decode.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const PARENT_ID = '53995c3f42cd8ad8';

function line(span, resourceAttributes = [{ key: 'service.name', value: { stringValue: 'front' } }]) {
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ scope: { name: 'http', version: '1.0' }, spans: [span] }] }] });
}

const base = { traceId: TRACE_ID, spanId: SPAN_ID, name: 'GET /users', startTimeUnixNano: '1700000000000000001', endTimeUnixNano: '1700000000250000000' };

test('decodeSpanLine: ids, parent, kind, status, times, scope, resource and typed attributes', () => {
  const [span, ...rest] = decodeSpanLine(
    line({
      ...base,
      parentSpanId: PARENT_ID,
      kind: 2,
      status: { code: 2, message: 'boom' },
      attributes: [
        { key: 'http.response.status_code', value: { intValue: '500' } },
        { key: 'ok', value: { boolValue: false } },
        { key: 'ratio', value: { doubleValue: 0.5 } },
        { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
      ],
    }),
    'p.jsonl',
  );
  assert.equal(rest.length, 0);
  assert.equal(span.traceId, TRACE_ID);
  assert.equal(span.spanId, SPAN_ID);
  assert.equal(span.parentSpanId, PARENT_ID);
  assert.equal(span.kind, 'SERVER');
  assert.deepEqual(span.status, { code: 'ERROR', message: 'boom' });
  assert.equal(span.startTimeUnixNano, 1700000000000000001n, 'int64 nanoseconds kept exactly (BigInt)');
  assert.equal(span.endTimeUnixNano, 1700000000250000000n);
  assert.deepEqual(span.scope, { name: 'http', version: '1.0' });
  assert.equal(span.resource['service.name'], 'front');
  assert.equal(span.file, 'p.jsonl');
  assert.equal(span.attributes['http.response.status_code'], 500);
  assert.equal(span.attributes.ok, false);
  assert.equal(span.attributes.ratio, 0.5);
  assert.deepEqual(span.attributes.tags, ['a', 'b']);
});

test('decodeSpanLine: a root span has no parentSpanId; a missing kind and status mean INTERNAL and UNSET', () => {
  const [span] = decodeSpanLine(line({ ...base, parentSpanId: '' }));
  assert.equal(span.parentSpanId, undefined);
  assert.equal(span.kind, 'INTERNAL');
  assert.equal(span.status.code, 'UNSET');
});

test('decodeSpanLine: enum names (SPAN_KIND_CONSUMER, STATUS_CODE_OK) as the proto3 JSON mapping allows', () => {
  const [span] = decodeSpanLine(line({ ...base, kind: 'SPAN_KIND_CONSUMER', status: { code: 'STATUS_CODE_OK' } }));
  assert.equal(span.kind, 'CONSUMER');
  assert.equal(span.status.code, 'OK');
});

test('decodeSpanLine: uppercase hex and base64 ids decode to lowercase hex', () => {
  const b64 = (hex) => Buffer.from(hex, 'hex').toString('base64');
  const [upper] = decodeSpanLine(line({ ...base, traceId: TRACE_ID.toUpperCase() }));
  assert.equal(upper.traceId, TRACE_ID);
  const [fromB64] = decodeSpanLine(line({ ...base, traceId: b64(TRACE_ID), spanId: b64(SPAN_ID), parentSpanId: b64(PARENT_ID) }));
  assert.equal(fromB64.traceId, TRACE_ID);
  assert.equal(fromB64.spanId, SPAN_ID);
  assert.equal(fromB64.parentSpanId, PARENT_ID);
});

test('decodeSpanLine: events and links', () => {
  const [span] = decodeSpanLine(
    line({
      ...base,
      events: [{ name: 'exception', timeUnixNano: '1700000000100000000', attributes: [{ key: 'exception.message', value: { stringValue: 'x' } }] }],
      links: [{ traceId: TRACE_ID, spanId: PARENT_ID, traceState: 'k=v', attributes: [] }],
    }),
  );
  assert.deepEqual(span.events, [{ name: 'exception', timeUnixNano: 1700000000100000000n, attributes: { 'exception.message': 'x' } }]);
  assert.deepEqual(span.links, [{ traceId: TRACE_ID, spanId: PARENT_ID, traceState: 'k=v', attributes: {} }]);
});

test('decodeSpanLine: several resources and scopes in one line give their spans in order', () => {
  const request = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
        scopeSpans: [
          { scope: { name: 's1' }, spans: [{ ...base, name: 'one' }] },
          { scope: { name: 's2' }, spans: [{ ...base, name: 'two' }] },
        ],
      },
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: 'b' } }] }, scopeSpans: [{ scope: { name: 's3' }, spans: [{ ...base, name: 'three' }] }] },
    ],
  };
  const spans = decodeSpanLine(`  ${JSON.stringify(request)}\n`);
  assert.deepEqual(
    spans.map((s) => [s.name, s.scope.name, s.resource['service.name']]),
    [
      ['one', 's1', 'a'],
      ['two', 's2', 'a'],
      ['three', 's3', 'b'],
    ],
  );
});

test('decodeSpanLine: a line cut short throws SyntaxError; JSON that is not a trace request throws TypeError', () => {
  const whole = line(base);
  assert.throws(() => decodeSpanLine(whole.slice(0, whole.length - 5)), SyntaxError);
  assert.throws(() => decodeSpanLine('{"resourceMetrics":[]}'), { name: 'TypeError', message: /no "resourceSpans" array/ });
  assert.throws(() => decodeSpanLine(line({ ...base, traceId: 'abc' })), { name: 'TypeError', message: /traceId/ });
  assert.throws(() => decodeSpanLine(line({ ...base, spanId: TRACE_ID })), { name: 'TypeError', message: /spanId/ });
});

test('decodeId: 32/16 hex chars or their base64; anything else names the field', () => {
  assert.equal(decodeId(SPAN_ID.toUpperCase(), 8, 'spanId'), SPAN_ID);
  assert.throws(() => decodeId(42, 8, 'links.spanId'), { message: /links\.spanId/ });
  assert.throws(() => decodeId(Buffer.alloc(7).toString('base64'), 8, 'spanId'), TypeError, 'base64 of 7 bytes is no span id');
});

test('decodeSpanLine: start and end times must be unsigned 64-bit ns; an end before the start reads as the start; a bad event time as the span start', () => {
  const max = ((1n << 64n) - 1n).toString();
  assert.equal(decodeSpanLine(line({ ...base, startTimeUnixNano: max, endTimeUnixNano: max }))[0].startTimeUnixNano, BigInt(max));
  for (const bad of [{ startTimeUnixNano: '18446744073709551616' }, { startTimeUnixNano: 1e23 }, { endTimeUnixNano: -1 }]) {
    assert.throws(() => decodeSpanLine(line({ ...base, ...bad })), { name: 'TypeError', message: /span 00f067aa0ba902b7 has (a start|an end) time outside 0 to 2\^64-1 ns/ }, JSON.stringify(bad));
  }
  const [backwards] = decodeSpanLine(line({ ...base, endTimeUnixNano: '1' }));
  assert.equal(backwards.endTimeUnixNano, backwards.startTimeUnixNano);
  assert.equal(backwards.durationMs, 0);
  const [withEvent] = decodeSpanLine(line({ ...base, events: [{ name: 'e', timeUnixNano: 1e23 }] }));
  assert.equal(withEvent.events[0].timeUnixNano, withEvent.startTimeUnixNano);
});

test('decodeSpanLine: arrays and maps are unwrapped 32 levels deep, deeper ones read as a placeholder; a stringValue that is no string is empty', () => {
  const nest = (depth, kind) => {
    let text = '{"stringValue":"bottom"}';
    for (let i = 0; i < depth; i++) text = kind === 'array' ? `{"arrayValue":{"values":[${text}]}}` : `{"kvlistValue":{"values":[{"key":"k","value":${text}}]}}`;
    return text;
  };
  for (const kind of ['array', 'kvlist']) {
    const at = (depth) => decodeSpanLine(line({ ...base, attributes: [{ key: 'v', value: 'V' }] }).replace('"V"', nest(depth, kind)))[0].attributes.v;
    const innermost = (value) => {
      let n = 0;
      while (typeof value === 'object') [value, n] = [kind === 'array' ? value[0] : value.k, n + 1];
      return [n, value];
    };
    assert.deepEqual(innermost(at(32)), [32, 'bottom'], kind);
    assert.deepEqual(innermost(at(33)), [32, '[nested deeper than 32 levels]'], kind);
    assert.deepEqual(innermost(at(20_000)), [32, '[nested deeper than 32 levels]'], kind);
  }
  const deepArray = '['.repeat(100_000) + ']'.repeat(100_000);
  const [span] = decodeSpanLine(line({ ...base, attributes: [{ key: 's', value: { stringValue: 'S' } }] }).replace('"S"', deepArray));
  assert.equal(span.attributes.s, undefined);
});

test('skipReason never quotes the line: a JSON syntax error is told by its position', () => {
  const reason = (text) => {
    try {
      decodeSpanLine(text);
    } catch (err) {
      return skipReason(err);
    }
  };
  assert.equal(reason('garbage \x1b]0;title\x07'), 'not JSON');
  assert.equal(reason('{"resourceSpans":['), 'not JSON: it ends early');
  assert.match(reason('{"resourceSpans":[}'), /^not JSON( \(at character 18\))?$/);
  assert.equal(reason(line({ ...base, traceId: 'x'.repeat(10_000) })), 'span "traceId" is not 32 hex chars: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"');
});
