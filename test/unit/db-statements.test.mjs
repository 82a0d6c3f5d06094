// SQL text reaches a span with every comment and literal masked, read with PostgreSQL's and MySQL's own token
// rules; placeholders, casts, names and quoted identifiers are kept. test/sql-masking.test.mjs checks the same
// rules against a real PostgreSQL server.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';
import { ESCAPED_PG_STRING, statementArbitrary } from '../helpers/sql-fragments.mjs';

const require = createRequire(import.meta.url);
const { MAX_QUERY_TEXT_CHARS, queryText } = require('../../dist/instrumentations/db-statements.js');
const { maskSql } = require('../../dist/instrumentations/sql-mask.js');

test('PostgreSQL: literals become ?, comments /* ? */; placeholders, casts, names and quoted identifiers stay', () => {
  const cases = [
    ['SELECT $1::int AS id', 'SELECT $1::int AS id'],
    ["UPDATE users SET api_token = 'tok-1' WHERE id = 42", 'UPDATE users SET api_token = ? WHERE id = ?'],
    ["SELECT 'it''s' AS s, 3.14 AS pi, -7 AS n", 'SELECT ? AS s, ? AS pi, -? AS n'],
    ['SELECT "col1", t2.x FROM t2 LIMIT 10 OFFSET $2', 'SELECT "col1", t2.x FROM t2 LIMIT ? OFFSET $2'],
    ["SELECT $$a 'secret' body$$, $tag$x$tag$", 'SELECT ?, ?'],
    ['SELECT now()', 'SELECT now()'],
    // Issue 29 item 6.
    ["/* don't log this */ SELECT 'tok_SECRET_A'", '/* ? */ SELECT ?'],
    ["-- it's\nSELECT 'tok_SECRET_B'", '/* ? */\nSELECT ?'],
    ["SELECT E'a\\'b tok_SECRET_C', x", 'SELECT ?, x'],
    ['SELECT 1e10, .5, 4.111e15, 0x1F, 0o17, 0b101, 1_000, 1.5e-3', 'SELECT ?, ?, ?, ?, ?, ?, ?, ?'],
    ["SELECT U&'d!0061t' UESCAPE '!', B'0101', X'1F', N'n', e'\\\\'", 'SELECT ? UESCAPE ?, ?, ?, ?, ?'],
    ['SELECT /* a /* nested */ still a comment */ 1 -- to the end\n, t1.c2, a$b$c, "a""b"', 'SELECT /* ? */ ? /* ? */\n, t1.c2, a$b$c, "a""b"'],
    ['SELECT $a$ $$ $b$ $a$, 1$$x$$', 'SELECT ?, ??'],
    ['SELECT x FROM t WHERE j ? $1 AND a<->b--c', 'SELECT x FROM t WHERE j ? $1 AND a<->b/* ? */'],
    // Where standard_conforming_strings decides the end and its two readings differ: masked to the end.
    ["SELECT 'C:\\' AS dir, tok_SECRET 'x'", 'SELECT ?'],
    ["SELECT 'C:\\\\' AS dir", 'SELECT ? AS dir'],
    // Not ending: masked to the end.
    ["SELECT 'tok_SECRET", 'SELECT ?'],
    ['SELECT 1 /* tok_SECRET', 'SELECT ? /* ? */'],
    ['SELECT $x$ tok_SECRET $y$', 'SELECT ?'],
    ['SELECT "tok_SECRET', 'SELECT ?'],
  ];
  for (const [sql, masked] of cases) assert.equal(maskSql(sql, 'postgresql'), masked, sql);
});

test('MySQL: its own rules: backslash escapes, "…" strings, `backticks`, #, "-- " and /*! */', () => {
  const cases = [
    ['SELECT id FROM users WHERE email = ? AND n = 42', 'SELECT id FROM users WHERE email = ? AND n = ?'],
    ["SELECT 'it\\'s tok_SECRET', \"a \\\" tok_SECRET\", 'a''b', `my col`, `a``b`", 'SELECT ?, ?, ?, `my col`, `a``b`'],
    ['SELECT 1 # tok_SECRET\n, 2 -- tok_SECRET\n, 3--4', 'SELECT ? /* ? */\n, ? /* ? */\n, ?--?'],
    ['SELECT 1--', 'SELECT ?/* ? */'],
    ["SELECT /* tok_SECRET /* */ 'x', /*!50001 STRAIGHT_JOIN */ a", 'SELECT /* ? */ ?, /*!? STRAIGHT_JOIN */ a'],
    ["SELECT X'ff', B'01', N'n', _utf8mb4'tok_SECRET', 0x1F, 0b101, 1e10, .5, $a, a$1", 'SELECT ?, ?, ?, ?, ?, ?, ?, ?, $a, a$1'],
    ["SELECT 'tok_SECRET\\'", 'SELECT ?'],
  ];
  for (const [sql, masked] of cases) assert.equal(maskSql(sql, 'mysql'), masked, sql);
});

for (const dialect of ['postgresql', 'mysql']) {
  test(`${dialect}: random statements with a secret in every literal and comment form: none survives, every name and keyword does`, () => {
    fc.assert(
      fc.property(statementArbitrary(dialect), ({ sql, masked }) => {
        const out = maskSql(sql, dialect);
        assert.doesNotMatch(out, /Ω/);
        assert.equal(out, masked);
      }),
      { numRuns: 2000 },
    );
  });

  test(`${dialect}: past the bound, wherever the cut falls, no part of a literal or comment is kept`, () => {
    fc.assert(
      fc.property(statementArbitrary(dialect), fc.nat(200), ({ sql }, shift) => {
        const long = 'x'.repeat(MAX_QUERY_TEXT_CHARS - shift) + ' ' + sql;
        const text = queryText(long, dialect);
        assert.doesNotMatch(text, /Ω/);
        assert.ok(text.length <= MAX_QUERY_TEXT_CHARS + 1, `${text.length} chars`);
      }),
      { numRuns: 500 },
    );
  });
}

test('PostgreSQL: a string whose end standard_conforming_strings decides is masked to the end when its two readings differ', () => {
  const part = fc.constantFrom('\\', "''", 'Ω', ' ', 'x', ',', '\\\\');
  fc.assert(
    fc.property(fc.array(part, { maxLength: 10 }), (parts) => {
      const literal = `'${parts.join('')}'`;
      const rest = " , Ω 'Ω' , Ω";
      const sameEnd = ESCAPED_PG_STRING.exec(literal + rest)?.[0].length === literal.length;
      assert.equal(maskSql(`SELECT ${literal}${rest}`, 'postgresql'), sameEnd ? 'SELECT ? , Ω ? , Ω' : 'SELECT ?');
    }),
    { numRuns: 2000 },
  );
});

test('a bulk statement past the bound: its masked start, cut before a literal the bound split, then …', () => {
  const rows = Array.from({ length: 5000 }, (_, i) => `(${i}, 'secret-${i}')`).join(', ');
  const sql = `INSERT INTO t (id, s) VALUES ${rows}`;
  assert.ok(sql.length > MAX_QUERY_TEXT_CHARS);
  const text = queryText(sql, 'postgresql');
  assert.ok(text.length <= MAX_QUERY_TEXT_CHARS + 1, `${text.length} chars`);
  assert.ok(text.startsWith('INSERT INTO t (id, s) VALUES (?, ?), (?, ?)'), text.slice(0, 80));
  assert.ok(text.endsWith('…'));
  assert.doesNotMatch(text, /secret|'/);
  // Wherever the bound falls, even inside a literal, no part of one is kept.
  for (let cut = MAX_QUERY_TEXT_CHARS - 12; cut <= MAX_QUERY_TEXT_CHARS; cut++) {
    const shifted = 'x'.repeat(MAX_QUERY_TEXT_CHARS - cut) + sql;
    assert.doesNotMatch(queryText(shifted, 'postgresql'), /secret|'/, `cut at ${cut}`);
  }
  assert.equal(queryText('SELECT 1', 'postgresql'), 'SELECT ?');
  // Comments become longer when masked (`#` → `/* ? */`): the bound holds for the masked text too.
  const hashes = queryText('#\n'.repeat(MAX_QUERY_TEXT_CHARS / 2), 'mysql');
  assert.equal(hashes.length, MAX_QUERY_TEXT_CHARS + 1);
});
