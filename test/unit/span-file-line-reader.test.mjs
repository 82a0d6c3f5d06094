// The span file line reader: every byte read and searched once (a long line is linear, not
// quadratic), a line above the bound passed over and reported, never accumulated, also by an index
// that follows a growing file; offsets exact.
import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_LINE_BYTES, readLines } from '../../dist/span-file/line-reader.js';
import { SpanIndex } from '../../dist/span-file/span-index.js';
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
  const summary = got.map(({ text, line, offset, length, unterminated, tooLong }) => ({
    text: text.length > 8 ? `${text[0]}×${text.length}` : text,
    line,
    offset,
    length,
    unterminated,
    tooLong: tooLong === true,
  }));
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
  assert.deepEqual(got, [
    ['two', 2, false],
    ['th', 3, true],
  ]);
});

test('the default bound is 64 MiB', () => {
  assert.equal(MAX_LINE_BYTES, 64 * 1024 * 1024);
});

test('a range that starts inside a too-long line yields its rest as one tooLong line, then the next lines', async (t) => {
  const file = join(spansDir(t), 'a.jsonl');
  writeFileSync(file, 'xxxx\nnext\n');
  const handle = await open(file, 'r');
  t.after(() => handle.close());
  const got = [];
  for await (const l of readLines(handle, { start: 2, end: 10, startLine: 7, insideLongLine: true })) got.push([l.text, l.line, l.offset, l.length, l.tooLong === true]);
  assert.deepEqual(got, [
    ['', 7, 2, 2, true],
    ['next', 8, 5, 4, false],
  ]);
});

test('SpanIndex following a file: a growing last line over 64 MiB is passed over, then counted once with its whole length when its newline comes', async (t) => {
  const dir = spansDir(t);
  const file = join(dir, 'a.jsonl');
  const request = (traceId) =>
    JSON.stringify({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [{ traceId, spanId: '1'.repeat(16), name: 'n', kind: 1, startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }],
    });
  writeFileSync(file, `${request('a'.repeat(32))}\n`);
  const mib = Buffer.alloc(1024 * 1024, 'x');
  for (let i = 0; i < 65; i++) appendFileSync(file, mib);
  const index = new SpanIndex([dir]);
  await index.refresh();
  assert.equal(index.skippedCount, 0, 'still being written: not judged yet');
  appendFileSync(file, `xx\n${request('b'.repeat(32))}\n`);
  await index.refresh();
  assert.deepEqual(
    index
      .summaries()
      .map((s) => s.traceId)
      .sort(),
    ['a'.repeat(32), 'b'.repeat(32)],
  );
  assert.equal(index.skippedCount, 1);
  assert.equal(index.skipped[0].line, 2);
  assert.equal(index.skipped[0].reason, `line of ${65 * 1024 * 1024 + 2} bytes, longer than the 64 MiB bound: skipped`);
});
