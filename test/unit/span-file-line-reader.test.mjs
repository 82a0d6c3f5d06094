// The span file line reader: every byte read and searched once (a long line is linear, not
// quadratic), a line above the bound passed over and reported, never accumulated; offsets exact.
import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_LINE_BYTES, readLines } from '../../dist/span-file/line-reader.js';
import { spansDir } from '../helpers/fixture.mjs';

async function lines(file, range = {}) {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const out = [];
    for await (const l of readLines(handle, { start: 0, end: size, ...range })) out.push(l);
    return out;
  } finally {
    await handle.close();
  }
}

test('lines spanning several 1 MiB reads come back whole with exact offsets; a line over the bound is reported without its text', async (t) => {
  const file = join(spansDir(t), 'a.jsonl');
  const long = 'x'.repeat(2.5 * 1024 * 1024);
  const over = 'y'.repeat(3 * 1024 * 1024 + 7);
  writeFileSync(file, `ab\n${long}\n\n${over}\ncd\n${over}`);
  const got = await lines(file, { maxLineBytes: 3 * 1024 * 1024 });
  const summary = got.map(({ text, line, offset, length, unterminated, tooLong }) => ({ text: text.length > 8 ? `${text[0]}×${text.length}` : text, line, offset, length, unterminated, tooLong: tooLong === true }));
  assert.deepEqual(summary, [
    { text: 'ab', line: 1, offset: 0, length: 2, unterminated: false, tooLong: false },
    { text: `x×${long.length}`, line: 2, offset: 3, length: long.length, unterminated: false, tooLong: false },
    { text: '', line: 3, offset: 4 + long.length, length: 0, unterminated: false, tooLong: false },
    { text: '', line: 4, offset: 5 + long.length, length: over.length, unterminated: false, tooLong: true },
    { text: 'cd', line: 5, offset: 6 + long.length + over.length, length: 2, unterminated: false, tooLong: false },
    { text: '', line: 6, offset: 9 + long.length + over.length, length: over.length, unterminated: true, tooLong: true },
  ]);
});

test('reading stops at the given end (the size when opened), leaving a cut last line unterminated', async (t) => {
  const file = join(spansDir(t), 'a.jsonl');
  writeFileSync(file, 'one\ntwo\nthree\n');
  const handle = await open(file, 'r');
  t.after(() => handle.close());
  const got = [];
  for await (const l of readLines(handle, { start: 4, end: 10, startLine: 2 })) got.push([l.text, l.line, l.unterminated]);
  assert.deepEqual(got, [['two', 2, false], ['th', 3, true]]);
});

test('the default bound is 64 MiB', () => {
  assert.equal(MAX_LINE_BYTES, 64 * 1024 * 1024);
});
