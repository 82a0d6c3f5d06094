// traced()'s argument order: the name or options come first; options given after the function are an error at
// wrap time, never silently ignored. Calls the built dist/ directly, without the preload (traced() then just runs fn).
// Usage: npm run build && node --test test/unit/traced-arguments.test.mjs
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const { traced } = require('../../dist/context/traced.js');

test('traced(fn, options) and traced(fn, name) throw a TypeError saying the options go first', () => {
  const fn = (x) => x + 1;
  assert.throws(() => traced(fn, { name: 'add' }), { name: 'TypeError', message: 'traced(fn, options): the name or options go first: traced(nameOrOptions, fn)' });
  assert.throws(() => traced(fn, 'add'), { name: 'TypeError', message: 'traced(fn, name): the name or options go first: traced(nameOrOptions, fn)' });
});

test('the accepted forms wrap and pass calls through', () => {
  const fn = (x) => x + 1;
  assert.equal(traced(fn)(1), 2);
  assert.equal(traced(fn, undefined)(1), 2);
  assert.equal(traced('add', fn)(1), 2);
  assert.equal(traced({ name: 'add' }, fn)(1), 2);
  assert.throws(() => traced('add', 42), { name: 'TypeError', message: 'traced(nameOrOptions, fn): fn must be a function, got number' });
});
