import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { leadingKeyword } from '../instrumentations/db-statements.js';

/** instrumentation-pg's own exception message, which holds no value: the error's name and its SQLSTATE. */
const PG_EXCEPTION = /^PostgreSQL error of type '\w*' occurred \(code: (\w+)\)$/;
/** A SQLSTATE: five digits or upper-case letters (`22P02`). */
const SQLSTATE = /^[0-9A-Z]{5}$/;
const QUOTES = /["'`]/;
const MYSQL2_SCOPE = '@opentelemetry/instrumentation-mysql2';

/**
 * `message` with what a database error quotes masked: everything from its first quote to the last quote of the
 * same kind becomes `"?"` (or `'?'`, `` `?` ``; to the end when there is no other), and hexadecimal bytes become
 * `0x?`. Servers quote values without escaping the quotes inside them (PostgreSQL's `invalid input syntax for
 * type integer: "a"b"`, MySQL's `Duplicate entry 'x' for key 'users.email'`), so no pairing of quotes is safe;
 * the text before the first quote and after the template's closing one is the server's template. Unchanged when
 * it quotes nothing.
 */
export function maskErrorMessage(message: string): string {
  let masked = message;
  const first = message.search(QUOTES);
  if (first >= 0) {
    const quote = message[first]!;
    const last = message.lastIndexOf(quote);
    masked = `${message.slice(0, first)}${quote}?${quote}${last > first ? message.slice(last + 1) : ''}`;
  }
  return masked.replace(/0x[0-9a-fA-F]+/g, '0x?');
}

/**
 * Database CLIENT spans as tracehook records them, where the instrumentations' options cannot reach:
 * - error messages: as a span that has `db.system.name` (or the older `db.system`) ends with status ERROR,
 *   its status message and its exception events' `exception.message` / `exception.stacktrace` become
 *   {@link maskErrorMessage}'s. instrumentation-pg and instrumentation-mysql2 copy the server's message into the
 *   status (`invalid input syntax for type integer: "<a bound parameter>"`, `Duplicate entry '<value>' …`), and
 *   parameter values are never recorded otherwise. What is lost is kept as a code instead: the SQLSTATE from
 *   instrumentation-pg's exception event (`… (code: 22P02)`) becomes `db.response.status_code` and, when unset,
 *   `error.type`. Done in `onEnding`, while the span can still change, so every exporting processor sees it;
 * - instrumentation-mysql2's span name, the query's first space-separated word as written (the whole query when
 *   it has no space: `SELECT\n'tok…'`), becomes {@link leadingKeyword} of its masked `db.query.text`, as it starts.
 * @see OpenTelemetry semantic conventions, "Database spans", `db.response.status_code`, `error.type`
 */
export class DbSpanProcessor implements SpanProcessor {
  /** Names a mysql2 span after the first keyword of its masked query text. */
  onStart(span: Span): void {
    if (span.instrumentationScope.name !== MYSQL2_SCOPE) return;
    const text = span.attributes['db.query.text'];
    if (typeof text === 'string') span.updateName(leadingKeyword(text) || 'mysql');
  }

  /** Masks the status message and exception events of a database span that ends with an error. */
  onEnding(span: Span): void {
    if (span.status.code !== SpanStatusCode.ERROR) return;
    const attributes = span.attributes;
    if (attributes['db.system.name'] === undefined && attributes['db.system'] === undefined) return;
    const message = span.status.message;
    if (message) {
      const masked = maskErrorMessage(message);
      if (masked !== message) span.setStatus({ code: SpanStatusCode.ERROR, message: masked });
    }
    for (const event of span.events) {
      const eventAttributes = event.attributes;
      if (event.name !== 'exception' || eventAttributes === undefined) continue;
      const text = eventAttributes['exception.message'];
      const code = typeof text === 'string' ? PG_EXCEPTION.exec(text)?.[1] : undefined;
      if (code !== undefined) {
        if (SQLSTATE.test(code) && attributes['db.response.status_code'] === undefined) {
          span.setAttribute('db.response.status_code', code);
          if (attributes['error.type'] === undefined) span.setAttribute('error.type', code);
        }
        continue;
      }
      for (const key of ['exception.message', 'exception.stacktrace']) {
        const value = eventAttributes[key];
        if (typeof value === 'string') eventAttributes[key] = maskErrorMessage(value);
      }
    }
  }

  /** Nothing to do: the span was changed in `onEnding`. */
  onEnd(_span: ReadableSpan): void {}

  /** Resolves at once: nothing is buffered. */
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Resolves at once: nothing to release. */
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
