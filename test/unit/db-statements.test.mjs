// Literal values in SQL text are replaced by `?` before they reach a span; placeholders, casts and names are kept.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';

const require = createRequire(import.meta.url);
const { MAX_QUERY_TEXT_CHARS, maskSqlLiterals, queryText } = require('../../dist/instrumentations/db-statements.js');

test('string and numeric literals become ?; placeholders, casts, names and quoted identifiers stay', () => {
  const cases = [
    ['SELECT $1::int AS id', 'SELECT $1::int AS id'],
    ["UPDATE users SET api_token = 'tok-1' WHERE id = 42", 'UPDATE users SET api_token = ? WHERE id = ?'],
    ["SELECT 'it''s' AS s, 3.14 AS pi, -7 AS n", 'SELECT ? AS s, ? AS pi, -? AS n'],
    ['SELECT "col1", t2.x FROM t2 LIMIT 10 OFFSET $2', 'SELECT "col1", t2.x FROM t2 LIMIT ? OFFSET $2'],
    ["SELECT $$a 'secret' body$$, $tag$x$tag$", 'SELECT ?, ?'],
    ['SELECT now()', 'SELECT now()'],
  ];
  for (const [sql, masked] of cases) assert.equal(maskSqlLiterals(sql), masked, sql);
});

test('a secret placed as a string literal never survives masking', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, unit: 'grapheme' }), (secret) => {
      const sql = `UPDATE users SET password = '${secret.replace(/'/g, "''")}' WHERE id = $1`;
      assert.equal(maskSqlLiterals(sql), 'UPDATE users SET password = ? WHERE id = $1');
    }),
  );
});

test('a bulk statement past the bound: its masked start, cut before a literal the bound split, then …', () => {
  const rows = Array.from({ length: 5000 }, (_, i) => `(${i}, 'secret-${i}')`).join(', ');
  const sql = `INSERT INTO t (id, s) VALUES ${rows}`;
  assert.ok(sql.length > MAX_QUERY_TEXT_CHARS);
  const text = queryText(sql);
  assert.ok(text.length <= MAX_QUERY_TEXT_CHARS + 1, `${text.length} chars`);
  assert.ok(text.startsWith('INSERT INTO t (id, s) VALUES (?, ?), (?, ?)'), text.slice(0, 80));
  assert.ok(text.endsWith('…'));
  assert.doesNotMatch(text, /secret|'/);
  // Wherever the bound falls, even inside a literal, no part of one is kept.
  for (let cut = MAX_QUERY_TEXT_CHARS - 12; cut <= MAX_QUERY_TEXT_CHARS; cut++) {
    const shifted = 'x'.repeat(MAX_QUERY_TEXT_CHARS - cut) + sql;
    assert.doesNotMatch(queryText(shifted), /secret|'/, `cut at ${cut}`);
  }
  assert.equal(queryText('SELECT 1'), 'SELECT ?');
});
