/** The SQL dialects whose token rules {@link maskSql} follows. */
export type SqlDialect = 'postgresql' | 'mysql';

/** What a literal becomes. */
const LITERAL_MASK = '?';
/** What a comment becomes (comments may carry secrets: `/* token … *\/`). */
const COMMENT_MASK = '/* ? */';

const QUOTE = 0x27; // '
const DOUBLE_QUOTE = 0x22; // "
const BACKTICK = 0x60; // `
const BACKSLASH = 0x5c;
const DOLLAR = 0x24;
const DASH = 0x2d;
const SLASH = 0x2f;
const STAR = 0x2a;
const HASH = 0x23;
const DOT = 0x2e;
const PLUS = 0x2b;
const AMPERSAND = 0x26;
const BANG = 0x21;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
/** Start of an unquoted name: a letter, `_` or any non-ASCII character (both systems), `$` in MySQL. */
const isNameStart = (c: number, pg: boolean) => isLetter(c) || c === 0x5f || c >= 0x80 || (!pg && c === DOLLAR);
/** Rest of an unquoted name: the same, digits, and `$` (PostgreSQL allows it after the first character). */
const isNamePart = (c: number) => isLetter(c) || isDigit(c) || c === 0x5f || c === DOLLAR || c >= 0x80;
/** Rest of a dollar quote's tag: a name without `$`. */
const isTagPart = (c: number) => isLetter(c) || isDigit(c) || c === 0x5f || c >= 0x80;

/**
 * Where the quoted text opening at `open` ends (the index after its closing quote), `-1` when it does not: `''`
 * inside is one quote, and with `backslashEscapes` a backslash escapes the next character.
 */
function quotedEnd(sql: string, open: number, quote: number, backslashEscapes: boolean): number {
  const n = sql.length;
  for (let i = open + 1; i < n; i++) {
    const c = sql.charCodeAt(i);
    if (c === BACKSLASH && backslashEscapes) i++;
    else if (c === quote) {
      if (sql.charCodeAt(i + 1) !== quote) return i + 1;
      i++;
    }
  }
  return -1;
}

/**
 * Where PostgreSQL's `'…'` ends: without backslash escapes under `standard_conforming_strings` (on, the default
 * since 9.1), with them when it is off. When the two readings end it at different places (a backslash before a
 * quote, `'C:\'`, rare, as clients double quotes), `-1`: the caller masks to the end, so whichever setting the
 * server has, no part of the string is kept.
 */
function pgStringEnd(sql: string, open: number): number {
  const n = sql.length;
  let backslash = false;
  for (let i = open + 1; i < n; i++) {
    const c = sql.charCodeAt(i);
    if (c === BACKSLASH) backslash = true;
    else if (c === QUOTE) {
      if (sql.charCodeAt(i + 1) !== QUOTE) return !backslash || quotedEnd(sql, open, QUOTE, true) === i + 1 ? i + 1 : -1;
      i++;
    }
  }
  return -1;
}

/**
 * Where the dollar-quoted string opening at `open` (`$$…$$`, `$tag$…$tag$`) ends, `-1` when it does not, or
 * `undefined` when no dollar quote opens there (a `$1` placeholder, a lone `$`).
 */
function dollarQuotedEnd(sql: string, open: number): number | undefined {
  let i = open + 1;
  const first = sql.charCodeAt(i);
  if (first !== DOLLAR) {
    if (!(isLetter(first) || first === 0x5f || first >= 0x80)) return undefined;
    while (isTagPart(sql.charCodeAt(i))) i++;
    if (sql.charCodeAt(i) !== DOLLAR) return undefined;
  }
  const delimiter = sql.slice(open, i + 1);
  const close = sql.indexOf(delimiter, i + 1);
  return close < 0 ? -1 : close + delimiter.length;
}

/** Where the block comment opening at `open` ends, `-1` when it does not; PostgreSQL nests them, MySQL does not. */
function blockCommentEnd(sql: string, open: number, nested: boolean): number {
  const n = sql.length;
  let depth = 1;
  for (let i = open + 2; i < n - 1; i++) {
    const c = sql.charCodeAt(i);
    if (c === STAR && sql.charCodeAt(i + 1) === SLASH) {
      if (--depth === 0) return i + 2;
      i++;
    } else if (nested && c === SLASH && sql.charCodeAt(i + 1) === STAR) {
      depth++;
      i++;
    }
  }
  return -1;
}

/** The end of the line that `i` is on (the index of its `\n` or `\r`, or the text's length). */
function lineEnd(sql: string, i: number): number {
  const n = sql.length;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return i;
    i++;
  }
  return n;
}

/**
 * Where the numeric literal starting at `start` (a digit, or `.` then a digit) ends: digits, letters, `_`, `.`
 * (`4.111e15`, `0x1F`, `1_000`, and PostgreSQL's `1abc` trailing junk), and a sign right after an exponent's `e`.
 * In PostgreSQL a `$` ends it (`1$$…$$` is a number then a dollar quote); in MySQL it is part of a name (`1$a`).
 */
function numberEnd(sql: string, start: number, pg: boolean): number {
  const n = sql.length;
  let i = start + 1;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c === DOT || (isNamePart(c) && !(pg && c === DOLLAR))) i++;
    else if ((c === PLUS || c === DASH) && (sql.charCodeAt(i - 1) | 0x20) === 0x65 && isDigit(sql.charCodeAt(i + 1))) i += 2;
    else break;
  }
  return i;
}

/** A one-letter prefix of a string read as a plain one (both systems): `B'…'`, `X'…'`, `N'…'`. */
const isPrefixLetter = (c: number) => {
  const lower = c | 0x20;
  return lower === 0x62 || lower === 0x78 || lower === 0x6e;
};

/**
 * `sql` with every comment replaced by `/* ? *\/` and every literal by `?`, read with the token rules of `dialect`
 * in one pass (linear in the text):
 * - comments: `--` to the line's end (MySQL: only when a space or control character follows), MySQL's `#`, and
 *   `/* … *\/` (nested in PostgreSQL). MySQL's executable comments `/*! … *\/` are SQL the server runs: their
 *   contents are read as SQL;
 * - strings: `'…'` with `''` inside; PostgreSQL `E'…'` (backslash escapes), `U&'…'`, `B'…'`, `X'…'`, `N'…'`,
 *   `$$…$$` and `$tag$…$tag$` (where `standard_conforming_strings` decides where a `'…'` ends and its two readings
 *   differ, the text is masked from the string on); MySQL `'…'` and `"…"` with backslash escapes (its default, and
 *   what its clients' escaping writes; not `NO_BACKSLASH_ESCAPES`), `"…"` masked also where `ANSI_QUOTES` makes it
 *   an identifier, `B'…'`, `X'…'`, `N'…'`, `_charset'…'`;
 * - numbers: `42`, `3.14`, `.5`, `1e10`, `4.111e15`, `0x1F`, `0b101`, `1_000`.
 * Kept: keywords, names (`t1`, `a$b`), PostgreSQL's `"quoted identifiers"` and MySQL's `` `backticked` `` ones,
 * operators, casts (`::int`), placeholders (`$1`, `?`). A literal or comment that does not end is masked with
 * everything after it, so a cut text keeps no part of one.
 * @see PostgreSQL documentation, "Lexical Structure" (https://www.postgresql.org/docs/current/sql-syntax-lexical.html);
 *   MySQL Reference Manual, "String Literals", "Comments" (https://dev.mysql.com/doc/refman/8.4/en/string-literals.html)
 */
export function maskSql(sql: string, dialect: SqlDialect): string {
  const pg = dialect === 'postgresql';
  const n = sql.length;
  let out = '';
  let copied = 0;
  let i = 0;
  /** Replaces `sql[start, end)` (to the text's end when `end` is -1) with `mask`; returns where to go on. */
  const replace = (start: number, end: number, mask: string): number => {
    out += sql.slice(copied, start) + mask;
    copied = end < 0 ? n : end;
    return copied;
  };
  /** Where the string opening at `open` ends: MySQL's with backslash escapes (its default). */
  const stringEnd = (open: number) => (pg ? pgStringEnd(sql, open) : quotedEnd(sql, open, sql.charCodeAt(open), true));
  while (i < n) {
    const c = sql.charCodeAt(i);
    const next = sql.charCodeAt(i + 1);
    if (isNameStart(c, pg)) {
      let end = i + 1;
      while (end < n && isNamePart(sql.charCodeAt(end))) end++;
      const after = sql.charCodeAt(end);
      const single = end === i + 1;
      const lower = c | 0x20;
      if (pg && single && lower === 0x65 && after === QUOTE) i = replace(i, quotedEnd(sql, end, QUOTE, true), LITERAL_MASK);
      else if (pg && single && lower === 0x75 && after === AMPERSAND && sql.charCodeAt(end + 1) === QUOTE) i = replace(i, pgStringEnd(sql, end + 1), LITERAL_MASK);
      else if (after === QUOTE && ((single && isPrefixLetter(c)) || (!pg && c === 0x5f))) i = replace(i, stringEnd(end), LITERAL_MASK);
      else i = end;
    } else if (isDigit(c) || (c === DOT && isDigit(next))) {
      i = replace(i, numberEnd(sql, i, pg), LITERAL_MASK);
    } else if (c === QUOTE || (c === DOUBLE_QUOTE && !pg)) {
      i = replace(i, stringEnd(i), LITERAL_MASK);
    } else if (c === DOUBLE_QUOTE || c === BACKTICK) {
      // A quoted identifier, kept; one that does not end is masked with the rest.
      const end = quotedEnd(sql, i, c, false);
      i = end < 0 ? replace(i, -1, LITERAL_MASK) : end;
    } else if (c === DOLLAR && pg) {
      const end = dollarQuotedEnd(sql, i);
      if (end === undefined) {
        i++;
        while (isDigit(sql.charCodeAt(i))) i++;
      } else {
        i = replace(i, end, LITERAL_MASK);
      }
    } else if (c === DASH && next === DASH && (pg || !(sql.charCodeAt(i + 2) > 0x20 && sql.charCodeAt(i + 2) !== 0x7f))) {
      i = replace(i, lineEnd(sql, i), COMMENT_MASK);
    } else if (c === HASH && !pg) {
      i = replace(i, lineEnd(sql, i), COMMENT_MASK);
    } else if (c === SLASH && next === STAR) {
      if (!pg && sql.charCodeAt(i + 2) === BANG) i += 3;
      else i = replace(i, blockCommentEnd(sql, i, pg), COMMENT_MASK);
    } else {
      i++;
    }
  }
  return copied === 0 ? sql : out + sql.slice(copied);
}
