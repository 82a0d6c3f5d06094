// Unit tests of search by attribute (dist/span-file/span-search.js, called directly and as the
// page inlines it): key=value, key=prefix*, a bare key, free text; a trace matches each term by some span.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inlined } from '../helpers/page-inline.mjs';
import * as module from '../../dist/span-file/span-search.js';

const { parseSpanQuery, spanMatchesQuery, traceMatchesQueries } = module;

const server = {
  name: 'GET /users/:id',
  attributes: { 'http.route': '/users/:id', 'http.response.status_code': 500, 'url.path': '/users/42', big: 12345678901234567890n, tags: ['red', 'blue'], ok: false },
  resource: { 'service.name': 'front', 'process.pid': 42 },
};
const query = { name: 'SELECT', attributes: { 'db.system': 'postgresql', 'db.statement': 'SELECT * FROM Users' }, resource: { 'service.name': 'db-svc' } };

const matches = (span, text) => spanMatchesQuery(span, parseSpanQuery(text));

test('parseSpanQuery: key=value, key=prefix*, quoted values, bare text; blank and key-less terms are undefined', () => {
  assert.deepEqual(parseSpanQuery(' http.route = /users '), { kind: 'equals', key: 'http.route', value: '/users' });
  assert.deepEqual(parseSpanQuery('url.path=/users/*'), { kind: 'prefix', key: 'url.path', value: '/users/' });
  assert.deepEqual(parseSpanQuery('k="a b*"'), { kind: 'equals', key: 'k', value: 'a b*' });
  assert.deepEqual(parseSpanQuery('k=a=b'), { kind: 'equals', key: 'k', value: 'a=b' });
  assert.deepEqual(parseSpanQuery('"GET /users"'), { kind: 'text', text: 'GET /users' });
  assert.equal(parseSpanQuery('   '), undefined);
  assert.equal(parseSpanQuery('=x'), undefined);
});

test('spanMatchesQuery: exact values of strings, numbers, booleans, bigints and array elements; resource attributes too', () => {
  assert.ok(matches(server, 'http.route=/users/:id'));
  assert.ok(!matches(server, 'http.route=/users'));
  assert.ok(matches(server, 'http.response.status_code=500'));
  assert.ok(matches(server, 'ok=false'));
  assert.ok(matches(server, 'big=12345678901234567890'));
  assert.ok(matches(server, 'tags=blue'));
  assert.ok(matches(server, 'service.name=front'));
  assert.ok(!matches(server, 'service.name=db-svc'));
  assert.ok(matches(server, 'process.pid=42'));
  assert.ok(!matches(server, 'missing=x'));
});

test('spanMatchesQuery: prefixes, a bare key (exists) and free text in names and values, ignoring case', () => {
  assert.ok(matches(server, 'url.path=/users/*'));
  assert.ok(!matches(server, 'url.path=/orders*'));
  assert.ok(matches(server, 'http.status_code=*') === false, 'a prefix needs the key');
  assert.ok(matches(server, 'url.path=*'), 'an empty prefix: the key exists');
  assert.ok(matches(query, 'db.statement'), 'a bare key');
  assert.ok(matches(query, 'from users'), 'free text in a value, any case');
  assert.ok(matches(server, 'get /USERS'), 'free text in the name');
  assert.ok(matches(server, 'front'), 'free text in a resource value');
  assert.ok(!matches(server, 'postgres'));
});

test('traceMatchesQueries: every term matched, each by some span; no terms match all', () => {
  const trace = [server, query];
  assert.ok(traceMatchesQueries(trace, [parseSpanQuery('http.route=/users/:id'), parseSpanQuery('db.system=postgresql')]));
  assert.ok(!traceMatchesQueries(trace, [parseSpanQuery('http.route=/users/:id'), parseSpanQuery('db.system=mysql')]));
  assert.ok(traceMatchesQueries(trace, []));
  assert.ok(!traceMatchesQueries([], [parseSpanQuery('x')]));
});

test('the functions work from their compiled text alone, as the page inlines them', () => {
  const inlinedFns = inlined(module, 'parseSpanQuery', 'traceMatchesQueries');
  assert.ok(inlinedFns.traceMatchesQueries([server], [inlinedFns.parseSpanQuery('url.path=/users/*')]));
});
