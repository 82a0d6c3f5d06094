import type { Span } from '@opentelemetry/api';

// Dollar-quoted bodies ($$…$$, $tag$…$tag$), single-quoted strings ('' inside), then numbers that are not part of
// a name, a `$1` placeholder or a longer number.
const DOLLAR_QUOTED = /\$([A-Za-z_][A-Za-z_0-9]*)?\$[\s\S]*?\$\1\$/g;
const QUOTED = /'(?:[^']|'')*'/g;
const NUMBER = /(?<![\w$.])\d+(?:\.\d+)?(?![\w.])/g;

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
 * Options for @opentelemetry/instrumentation-pg: its `db.query.text` is the query as written, literals included
 * ({@link maskSqlLiterals} replaces it from `requestHook`, called as the span starts). Parameter values are not
 * recorded (`enhancedDatabaseReporting` stays off).
 */
export function pgOptions(): Record<string, unknown> {
  return {
    requestHook: (span: Span, info: { query?: { text?: unknown } }) => {
      const text = info.query?.text;
      if (typeof text !== 'string') return;
      const masked = maskSqlLiterals(text);
      if (masked !== text) span.setAttribute('db.query.text', masked);
    },
  };
}

/**
 * Options for @opentelemetry/instrumentation-mysql2: `maskStatement`, its own redaction of quoted strings and numbers
 * in `db.query.text` (MySQL quotes strings with `'` or `"`). Without it, depending on the order mysql2's files load,
 * it may format the parameter values into the query text.
 */
export const MYSQL2_OPTIONS: Readonly<Record<string, unknown>> = { maskStatement: true };
