// Random SQL for the masking tests (test/unit/db-statements.test.mjs, test/sql-masking.test.mjs): statements made of
// fragments to keep (keywords, names, operators, placeholders, quoted identifiers) and fragments to mask (every
// literal and comment form of PostgreSQL or MySQL), each of the latter with a secret inside written as that form
// requires. Secrets are made of characters that open or close tokens, joined by Ω, which appears nowhere else: a
// masked text that still holds an Ω kept part of a secret.
import fc from 'fast-check';

const NASTY = ["'", "''", '"', '""', '\\', "\\'", '$', '$$', '$a$', '$tag$', '*/', '/*', '--', '-- ', '#', '\n', '\r', '`', "E'", "U&'", ' ', 'x', '1', '.5', 'é', '😀', '?', ';', '/*!'];

/** A secret: `Ωtok_SECRET` then up to 8 token-breaking pieces, each followed by `Ω`. */
export const secretArbitrary = fc.array(fc.constantFrom(...NASTY), { maxLength: 8 }).map((parts) => `Ωtok_SECRET${parts.map((p) => `${p}Ω`).join('')}`);

/** `s` without any of `bad` (removed until none is left). */
const without = (s, ...bad) => {
  for (;;) {
    const t = bad.reduce((acc, b) => acc.replaceAll(b, ''), s);
    if (t === s) return s;
    s = t;
  }
};
const doubled = (s, q) => `${q}${s.replaceAll(q, q + q)}${q}`;
const backslashed = (s, q) => `${q}${s.replaceAll('\\', '\\\\').replaceAll(q, `\\${q}`)}${q}`;
const LITERAL = '?';
const COMMENT = '/* ? */';

/**
 * Masked forms of a dialect, each `(secret) → { sql, masked, value?, settingDependent? }`: `value` is what
 * PostgreSQL returns for `SELECT <sql>` (server checks; absent where the form is not a text value there);
 * `settingDependent` marks a string whose end standard_conforming_strings decides (masked to the end when the
 * two readings differ); `pg16` marks forms PostgreSQL reads only from version 16 on; `unitOnly` forms the server
 * rejects with a secret inside (`X'…'` wants hex digits).
 */
const MASKED_FORMS = {
  postgresql: [
    (s) => ({ sql: doubled(without(s, '\\'), "'"), value: without(s, '\\') }),
    (s) => ({ sql: doubled(s, "'"), value: s, settingDependent: s.includes('\\') }),
    (s) => ({ sql: `E${backslashed(s, "'")}`, value: s }),
    (s) => ({ sql: `e${doubled(s.replaceAll('\\', '\\\\'), "'")}`, value: s }),
    ...['', 'a', 'tag', 'Q_1'].map((tag) => (s) => {
      const body = without(s, `$${tag}$`);
      return { sql: `$${tag}$${body}$${tag}$`, value: body };
    }),
    (s) => ({ sql: `U&${doubled(without(s, '\\'), "'")}`, value: without(s, '\\') }),
    () => ({ sql: "B'0101'", value: '0101' }),
    (s) => ({ sql: `X${doubled(without(s, '\\'), "'")}`, unitOnly: true }),
    (s) => ({ sql: `N${doubled(without(s, '\\'), "'")}`, unitOnly: true }),
    (s) => ({ sql: `--${without(s, '\n', '\r')}\n`, masked: `${COMMENT}\n`, comment: true }),
    (s) => ({ sql: `/* ${without(s, '*/', '/*')} */`, masked: COMMENT, comment: true }),
    (s) => ({ sql: `/* a /* ${without(s, '*/', '/*')} */ b */`, masked: COMMENT, comment: true }),
    ...['42', '3.14', '.5', '1e10', '4.111e15', '1.5e-3', '1E+5'].map((n) => () => ({ sql: n })),
    ...['0x1F', '0o17', '0b101', '1_000'].map((n) => () => ({ sql: n, pg16: true })),
  ],
  mysql: [
    (s) => ({ sql: backslashed(s, "'") }),
    (s) => ({ sql: doubled(s.replaceAll('\\', '\\\\'), "'") }),
    (s) => ({ sql: backslashed(s, '"') }),
    (s) => ({ sql: `_utf8mb4${backslashed(s, "'")}` }),
    (s) => ({ sql: `N${backslashed(s, "'")}` }),
    (s) => ({ sql: `X${backslashed(s, "'")}` }),
    (s) => ({ sql: `#${without(s, '\n', '\r')}\n`, masked: `${COMMENT}\n` }),
    (s) => ({ sql: `-- ${without(s, '\n', '\r')}\n`, masked: `${COMMENT}\n` }),
    (s) => ({ sql: `/* ${without(s, '*/')} */`, masked: COMMENT }),
    ...['42', '3.14', '.5', '1e10', '4.111e15', '1.5E-3', '0x1F', '0b101'].map((n) => () => ({ sql: n })),
  ],
};

const KEPT = {
  postgresql: [
    'SELECT',
    'FROM',
    'WHERE',
    'users',
    'col_a',
    't.name',
    '::text',
    '$1',
    '$12',
    '"Quoted ""Col"""',
    'U&"d\\0061t"',
    '=',
    ',',
    '(',
    ')',
    '*',
    '/',
    'a$b',
    'é_col',
    '<->',
    '?',
    '@>',
    'e',
    'E',
    'U',
    'x',
  ],
  mysql: ['SELECT', 'FROM', 'WHERE', 'users', 'col_a', 't.name', '`my col`', '`a``b`', '?', '=', ',', '(', ')', '*', '/', '$a', 'a$1', ':name', 'é_col', 'E', 'x'],
};

/** One masked fragment of `dialect`: `{ sql, masked, value?, settingDependent?, comment?, pg16?, unitOnly? }`. */
export function maskedArbitrary(dialect, filter = () => true) {
  const forms = MASKED_FORMS[dialect];
  return fc
    .tuple(fc.nat(forms.length - 1), secretArbitrary)
    .map(([i, secret]) => {
      const f = forms[i](secret);
      return { masked: LITERAL, ...f };
    })
    .filter(filter);
}

const SEPARATORS = fc.constantFrom(' ', '\n', '\t', ' \r\n ');

/**
 * A statement of `dialect`: `{ sql, masked }`, kept and masked fragments joined by whitespace, and the text
 * {@link maskSql} must make of it. Strings whose end depends on a server setting are left out (their rule: masked
 * to the end, checked on its own).
 */
export function statementArbitrary(dialect) {
  const kept = fc.constantFrom(...KEPT[dialect]).map((k) => ({ sql: k, masked: k }));
  const fragment = fc.oneof(
    kept,
    maskedArbitrary(dialect, (f) => !f.settingDependent),
  );
  return fc.array(fc.tuple(fragment, SEPARATORS), { minLength: 1, maxLength: 12 }).map((parts) => ({
    sql: parts.map(([f, sep]) => f.sql + sep).join(''),
    masked: parts.map(([f, sep]) => f.masked + sep).join(''),
  }));
}

/**
 * A PostgreSQL `'…'` string at the start of a text read with backslash escapes (standard_conforming_strings off),
 * as a regular expression (atomic: no backtracking); without them, it is `'…'` with `''` inside.
 */
export const ESCAPED_PG_STRING = /^'(?=((?:[^'\\]|\\[\s\S]|'')*))\1'/;

/**
 * `SELECT <literal> AS v` with comments around it, for a real PostgreSQL (version 15: no PG16-only forms):
 * `{ sql, masked, value }`, `value` what the server must return as `v` (undefined: not checked). A string whose
 * end standard_conforming_strings decides is masked to the end when its two readings differ.
 */
export function pgSelectArbitrary() {
  const literal = maskedArbitrary('postgresql', (f) => !f.comment && !f.pg16 && !f.unitOnly);
  const comment = fc.option(
    maskedArbitrary('postgresql', (f) => f.comment),
    { nil: undefined },
  );
  return fc.tuple(comment, comment, literal, comment, SEPARATORS).map(([c1, c2, lit, c3, sep]) => {
    const parts = [c1, { sql: 'SELECT', masked: 'SELECT' }, c2, lit, { sql: 'AS v', masked: 'AS v' }, c3].filter(Boolean);
    const before = parts.slice(0, parts.indexOf(lit));
    const sql = parts.map((p) => p.sql).join(sep);
    const at = before.map((p) => p.sql + sep).join('').length;
    const bothReadings = !lit.settingDependent || ESCAPED_PG_STRING.exec(sql.slice(at))?.[0].length === lit.sql.length;
    return {
      sql,
      masked: bothReadings ? parts.map((p) => p.masked).join(sep) : `${before.map((p) => p.masked + sep).join('')}?`,
      value: lit.value,
    };
  });
}
