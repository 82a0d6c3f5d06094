// Unit tests of the one escaper for terminal and stderr text (dist/diag/control-chars.js): every
// control character a terminal acts on is escaped visibly, other text is left alone, and the JSON
// variant keeps the line's meaning.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeControlChars, escapeControlCharsInJson } from '../../dist/diag/control-chars.js';

test('escapeControlChars: C0, DEL, C1 (U+009B CSI), line separators and bidi overrides become visible escapes', () => {
  assert.equal(escapeControlChars('a\x1b]0;t\x07b'), 'a\\x1b]0;t\\x07b');
  assert.equal(escapeControlChars('\r\n\t\x00\x7f\u0085\u009b31m'), '\\x0d\\x0a\\x09\\x00\\x7f\\x85\\x9b31m');
  assert.equal(escapeControlChars('\u202eevil\u2066\u2069\u200f\u061c\u2028'), '\\u202eevil\\u2066\\u2069\\u200f\\u061c\\u2028');
  assert.equal(escapeControlChars('café ├─ └─ ⋯ → 日本 😀 ÿ'), 'café ├─ └─ ⋯ → 日本 😀 ÿ', 'printable text unchanged');
  for (let code = 0; code < 0x100; code++) {
    const escaped = escapeControlChars(String.fromCharCode(code));
    assert.doesNotMatch(escaped, /[\x00-\x1f\x7f-\x9f]/, `U+${code.toString(16)}`);
  }
});

test('escapeControlChars with keepLines: newline and tab stay, CR and the rest are escaped', () => {
  assert.equal(escapeControlChars('stack:\n\tat x\r\x1b[2J', true), 'stack:\n\tat x\\x0d\\x1b[2J');
});

test('escapeControlCharsInJson: same JSON value, no raw C1, DEL, bidi or CR', () => {
  const value = { s: 'a\u009b31m\u007f\u202e\u2028b', n: 1 };
  const line = `${JSON.stringify(value)}\r`;
  const escaped = escapeControlCharsInJson(line);
  assert.doesNotMatch(escaped, /[\x00-\x1f\x7f-\x9f\u202e\u2028]/);
  assert.deepEqual(JSON.parse(escaped), value);
});
