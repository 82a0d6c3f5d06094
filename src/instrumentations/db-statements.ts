import type { Span } from '@opentelemetry/api';
import { maskSql } from './sql-mask.js';
import type { SqlDialect } from './sql-mask.js';

/**
 * Longest query text kept, UTF-16 code units (16 KiB): masking is linear in the text, and a bulk INSERT of
 * literals can be megabytes (masked in the app's own turn, for a time that grows with its length).
 */
export const MAX_QUERY_TEXT_CHARS = 16 * 1024;

/** `text` cut to at most `max` code units, never between the two halves of a surrogate pair. */
function cut(text: string, max: number): string {
  const high = text.charCodeAt(max - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max);
}

/**
 * `text` as a span records it: {@link maskSql} (comments and literals masked), and past
 * {@link MAX_QUERY_TEXT_CHARS} the masked text of its start followed by `…`. The text is cut before it is masked,
 * so a literal the cut splits does not end, and is masked with all after it: no part of one is kept.
 * Follows the semantic conventions: query text that is not parameterized is collected only with its literals
 * redacted, as they may be secrets (`WHERE api_token = '…'`).
 * @see OpenTelemetry semantic conventions, "Database spans", `db.query.text` (sanitization)
 */
export function queryText(text: string, dialect: SqlDialect): string {
  const long = text.length > MAX_QUERY_TEXT_CHARS;
  const masked = maskSql(long ? cut(text, MAX_QUERY_TEXT_CHARS) : text, dialect);
  // `#` becomes `/* ? */`: masked text can be longer than the text.
  if (masked.length > MAX_QUERY_TEXT_CHARS) return `${cut(masked, MAX_QUERY_TEXT_CHARS)}…`;
  return long ? `${masked}…` : masked;
}

/**
 * The word a masked query text starts with, after its comments (`SELECT` of `/* ? *\/ SELECT ?`), letters only;
 * `''` when it starts otherwise. For span names, which the instrumentations make of the text's first word as
 * written: that word can be a comment or a literal (`--tok…`, `SELECT\n'tok…'`).
 */
export function leadingKeyword(masked: string): string {
  return /^(?:\s|\/\* \? \*\/)*([A-Za-z]+)/.exec(masked)?.[1] ?? '';
}

/**
 * Options for @opentelemetry/instrumentation-pg: its `db.query.text` is the query as written, literals included;
 * `requestHook`, called as the span starts, replaces it with {@link queryText}, and the span's name
 * (`pg.query:<first word> <database>`) with one made of {@link leadingKeyword} when masking changed the text.
 * A prepared statement's name, which the app chose, is kept. Parameter values are not recorded
 * (`enhancedDatabaseReporting` stays off).
 */
export function pgOptions(): Record<string, unknown> {
  return {
    requestHook: (span: Span, info: { connection?: { database?: unknown }; query?: { text?: unknown; name?: unknown } }) => {
      const text = info.query?.text;
      if (typeof text !== 'string') return;
      const recorded = queryText(text, 'postgresql');
      if (recorded === text) return;
      span.setAttribute('db.query.text', recorded);
      if (typeof info.query?.name === 'string' && info.query.name !== '') return;
      const database = info.connection?.database;
      span.updateName(`pg.query:${leadingKeyword(recorded).toUpperCase()}${typeof database === 'string' && database !== '' ? ` ${database}` : ''}`);
    },
  };
}

/**
 * Options for @opentelemetry/instrumentation-mysql2: `maskStatement` with our `maskStatementHook`, {@link queryText}
 * with MySQL's token rules (the instrumentation's own hook is two regular expressions that leave comments and
 * backslash-escaped quotes). Without `maskStatement`, depending on the order mysql2's files load, it may format
 * the parameter values into the query text.
 */
export const MYSQL2_OPTIONS: Readonly<Record<string, unknown>> = {
  maskStatement: true,
  maskStatementHook: (query: string) => queryText(query, 'mysql'),
};
