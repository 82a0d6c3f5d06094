import { SpanKind, SpanStatusCode, context } from '@opentelemetry/api';
import type { Span, Tracer } from '@opentelemetry/api';
import { leadingKeyword, queryText } from '../db-statements.js';
import type { ChannelMessage, ChannelSpans } from './channel-spans.js';
import { errorMessage } from './channel-spans.js';

/** `TRUE`, `FALSE` and `NULL` outside backticked names (the only quoted text left after masking). */
const VALUE_KEYWORDS = /(`[^`]*`)|\b(?:TRUE|FALSE|NULL)\b/gi;

/**
 * `db.query.text` of what mysql2 publishes: {@link queryText}, and when mysql2 formatted `values` into it, also the
 * keywords a value becomes (`true`, `false`, `NULL`), which masking keeps as SQL: a parameter value never reaches
 * the span, at the price of an app-written `IS NULL` in such a query reading `IS ?`.
 */
export function mysql2QueryText(query: string, values: unknown): string {
  const text = queryText(query, 'mysql');
  if (!Array.isArray(values) || values.length === 0) return text;
  return text.replace(VALUE_KEYWORDS, (keyword: string, name: string | undefined) => name ?? '?');
}

/** A mysql2 error as instrumentation-mysql2 records it: the status only. */
function fail(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
}

/**
 * mysql2's TracingChannels `mysql2:query` and `mysql2:execute` (mysql2 ≥ 3.20): one CLIENT span per query or
 * prepared-statement execution, as @opentelemetry/instrumentation-mysql2 makes them under tracehook (name = the
 * first keyword of the masked text, `db.system.name` `mysql`, `db.query.text` masked by {@link queryText},
 * `db.namespace`, `server.address`, `server.port`), with or without a parent span. mysql2 publishes `query` already
 * formatted with the values of `?` placeholders; masking turns those values back into `?` ({@link mysql2QueryText};
 * an array value gives one `?` per element). Connections (`mysql2:connect`,
 * `mysql2:pool:connect`) get no span, as with the patch.
 * @param tracer - returns the tracer of the current provider
 */
export function mysql2Channels(tracer: () => Tracer): ChannelSpans[] {
  const start = (message: ChannelMessage, formatted: boolean): Span | undefined => {
    if (typeof message.query !== 'string') return undefined;
    // `execute` publishes the statement with `?` and its values apart: nothing was formatted into it.
    const text = mysql2QueryText(message.query, formatted ? message.values : undefined);
    const attributes: Record<string, string | number> = {};
    if (typeof message.database === 'string' && message.database !== '') attributes['db.namespace'] = message.database;
    if (typeof message.serverAddress === 'string') attributes['server.address'] = message.serverAddress;
    if (typeof message.serverPort === 'number') attributes['server.port'] = message.serverPort;
    attributes['db.system.name'] = 'mysql';
    attributes['db.query.text'] = text;
    return tracer().startSpan(leadingKeyword(text) || 'mysql', { kind: SpanKind.CLIENT, attributes }, context.active());
  };
  return [
    { channel: 'mysql2:query', start: (message) => start(message, true), fail },
    { channel: 'mysql2:execute', start: (message) => start(message, false), fail },
  ];
}
