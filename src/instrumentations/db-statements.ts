import type { Span } from '@opentelemetry/api';

// A dollar quote's tag (the `tag` of $tag$, or none).
const TAG = '[A-Za-z_][A-Za-z_0-9]*';
// Dollar-quoted bodies ($$…$$, $tag$…$tag$), single-quoted strings ('' inside), then numbers that are not part of
// a name, a `$1` placeholder or a longer number.
const DOLLAR_QUOTED = new RegExp(`\\$(${TAG})?\\$[\\s\\S]*?\\$\\1\\$`, 'g');
const QUOTED = /'(?:[^']|'')*'/g;
const NUMBER = /(?<![\w$.])\d+(?:\.\d+)?(?![\w.])/g;
// What is left of a quote after masking: the opening of a literal that a cut left unterminated.
const LITERAL_OPENING = new RegExp(`'|\\$(?:${TAG})?\\$`);

/**
 * `sql` with its literal values replaced by `?`: PostgreSQL's string constants (single-quoted, and dollar-quoted) and
 * numeric constants. Placeholders (`$1`), casts (`::int`), names (`t1`) and double-quoted identifiers are kept, so a
 * parameterized query is unchanged. Follows the semantic conventions: query text that is not parameterized is
 * collected only with its literals redacted, as they may be secrets (`WHERE api_token = '…'`).
 * @see OpenTelemetry semantic conventions, "Database spans", `db.query.text` (sanitization)
 */
export function maskSqlLiterals(sql: string): string {
  if (sql.indexOf("'") < 0 && sql.indexOf('$') < 0 && !/\d/.test(sql)) return sql;
  return sql.replace(DOLLAR_QUOTED, '?').replace(QUOTED, '?').replace(NUMBER, '?');
}

/**
 * Longest query text kept, UTF-16 code units (16 KiB): masking is linear in the text, and a bulk INSERT of
 * literals can be megabytes (≈ 15–40 ms to mask 0.9 MB, in the app's own turn).
 */
export const MAX_QUERY_TEXT_CHARS = 16 * 1024;

/**
 * `text` as a span records it: {@link maskSqlLiterals}, and past {@link MAX_QUERY_TEXT_CHARS} its masked start
 * followed by `…`, cut before a literal the bound split (so no part of one is kept).
 */
export function queryText(text: string): string {
  if (text.length <= MAX_QUERY_TEXT_CHARS) return maskSqlLiterals(text);
  const head = maskSqlLiterals(text.slice(0, MAX_QUERY_TEXT_CHARS));
  const open = head.search(LITERAL_OPENING);
  return `${open < 0 ? head : head.slice(0, open)}…`;
}

/**
 * Options for @opentelemetry/instrumentation-pg: its `db.query.text` is the query as written, literals included;
 * `requestHook`, called as the span starts, replaces it with {@link queryText}. Parameter values are not
 * recorded (`enhancedDatabaseReporting` stays off).
 */
export function pgOptions(): Record<string, unknown> {
  return {
    requestHook: (span: Span, info: { query?: { text?: unknown } }) => {
      const text = info.query?.text;
      if (typeof text !== 'string') return;
      const recorded = queryText(text);
      if (recorded !== text) span.setAttribute('db.query.text', recorded);
    },
  };
}

/**
 * Options for @opentelemetry/instrumentation-mysql2: `maskStatement`, its own redaction of quoted strings and numbers
 * in `db.query.text` (MySQL quotes strings with `'` or `"`). Without it, depending on the order mysql2's files load,
 * it may format the parameter values into the query text.
 */
export const MYSQL2_OPTIONS: Readonly<Record<string, unknown>> = { maskStatement: true };
