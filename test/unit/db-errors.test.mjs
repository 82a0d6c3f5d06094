// Database error messages lose the values they quote (DbSpanProcessor); test/sql-masking.test.mjs checks the
// spans of real PostgreSQL and mysql2 errors.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';

const require = createRequire(import.meta.url);
const { maskErrorMessage } = require('../../dist/processors/db-span-processor.js');

test('what a message quotes becomes "?"; the server\'s template around it stays', () => {
  const cases = [
    ['invalid input syntax for type integer: "tok"', 'invalid input syntax for type integer: "?"'],
    ['invalid input syntax for type integer: "a"b"', 'invalid input syntax for type integer: "?"'],
    ["Duplicate entry 'tok' for key 'users.email'", "Duplicate entry '?'"],
    ['syntax error at or near "\'tok\'"', 'syntax error at or near "?"'],
    ['unterminated quoted string at or near "\'tok', 'unterminated quoted string at or near "?"'],
    ['invalid byte sequence for encoding "UTF8": 0xff 0x01', 'invalid byte sequence for encoding "?": 0x? 0x?'],
    ['division by zero', 'division by zero'],
    ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 127.0.0.1:5432'],
  ];
  for (const [message, masked] of cases) assert.equal(maskErrorMessage(message), masked, message);
});

test('a value quoted by a template, whatever quotes it holds itself, leaves nothing of itself', () => {
  const templates = ['invalid input syntax for type integer: "%s"', "Duplicate entry '%s' for key 'k'", 'value "%s" is out of range', "near '%s' at line 1"];
  const value = fc.array(fc.constantFrom('"', "'", '`', 'Ω', ' ', 'x'), { maxLength: 12 }).map((p) => `Ω${p.join('')}Ω`);
  fc.assert(
    fc.property(fc.constantFrom(...templates), value, (template, v) => {
      assert.doesNotMatch(maskErrorMessage(template.replace('%s', v)), /Ω/);
    }),
    { numRuns: 1000 },
  );
});
