// Unit tests of the span directory walk (dist/span-file/span-files.js, called directly): `tracehook
// view`, `ui`, `export` and `mcp` read span files in directories up to 4 levels below the ones named,
// never through a symlink, and list at most 10,000 directories per path, saying so once past that.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findAllSpanFiles, findSpanFiles, SPAN_DIRS_MAX } from '../../dist/span-file/span-files.js';

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-walk-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('findAllSpanFiles: span files down to 4 levels below, not 5; a symlinked directory is not followed', (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'a', 'b', 'c', 'd', 'e'), { recursive: true });
  writeFileSync(join(dir, 'top.jsonl'), '');
  writeFileSync(join(dir, 'a', 'b', 'c', 'd', 'four.jsonl'), '');
  writeFileSync(join(dir, 'a', 'b', 'c', 'd', 'e', 'five.jsonl'), '');
  writeFileSync(join(dir, 'a', 'notes.txt'), '');
  symlinkSync(join(dir, 'a'), join(dir, 'link'));
  return findAllSpanFiles([dir]).then(({ files, skipped }) => {
    assert.deepEqual(files, [join(dir, 'a', 'b', 'c', 'd', 'four.jsonl'), join(dir, 'top.jsonl')]);
    assert.equal(skipped.size, 0);
  });
});

test('findSpanFiles: without a depth, the directory alone (as readSpanDir and the tests read it)', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'x.jsonl'), '');
  assert.deepEqual((await findSpanFiles(dir)).files, []);
  assert.deepEqual((await findSpanFiles(dir, 1)).files, [join(dir, 'sub', 'x.jsonl')]);
});

test(`findSpanFiles: past its bound of directories below a path (${SPAN_DIRS_MAX} by default), one line says the rest was not read`, async (t) => {
  const dir = tempDir(t);
  for (let i = 0; i < 6; i++) {
    mkdirSync(join(dir, `d${i}`));
    writeFileSync(join(dir, `d${i}`, 'x.jsonl'), '');
  }
  const { files, skipped } = await findSpanFiles(dir, 4, 3);
  assert.equal(files.length, 3, 'the files of the first 3 directories listed');
  assert.deepEqual(
    skipped.map((s) => s.reason),
    [`${dir}: more than 3 directories below it; the rest not read (name a subdirectory to read it)`],
  );
});
