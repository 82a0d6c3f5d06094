import { SpanKind, SpanStatusCode, context } from '@opentelemetry/api';
import type { Span, Tracer } from '@opentelemetry/api';
import { leadingKeyword, queryText } from '../db-statements.js';
import type { ChannelMessage, ChannelSpans } from './channel-spans.js';
import { errorMessage } from './channel-spans.js';

/** A mysql2 error as instrumentation-mysql2 records it: the status only. */
function fail(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
}

/**
 * mysql2's TracingChannels `mysql2:query` and `mysql2:execute` (mysql2 ≥ 3.20): one CLIENT span per query or
 * prepared-statement execution, as @opentelemetry/instrumentation-mysql2 makes them under tracehook (name = the
 * first keyword of the masked text, `db.system.name` `mysql`, `db.query.text` masked by {@link queryText},
 * `db.namespace`, `server.address`, `server.port`), with or without a parent span. mysql2 publishes `query` already
 * formatted with the values of `?` placeholders; masking turns those values back into `?` (a `NULL`, `true` or `false`
 * value stays a keyword, and an array value gives one `?` per element). Connections (`mysql2:connect`,
 * `mysql2:pool:connect`) get no span, as with the patch.
 * @param tracer - returns the tracer of the current provider
 */
export function mysql2Channels(tracer: () => Tracer): ChannelSpans[] {
  const start = (message: ChannelMessage): Span | undefined => {
    if (typeof message.query !== 'string') return undefined;
    const text = queryText(message.query, 'mysql');
    const attributes: Record<string, string | number> = {};
    if (typeof message.database === 'string' && message.database !== '') attributes['db.namespace'] = message.database;
    if (typeof message.serverAddress === 'string') attributes['server.address'] = message.serverAddress;
    if (typeof message.serverPort === 'number') attributes['server.port'] = message.serverPort;
    attributes['db.system.name'] = 'mysql';
    attributes['db.query.text'] = text;
    return tracer().startSpan(leadingKeyword(text) || 'mysql', { kind: SpanKind.CLIENT, attributes }, context.active());
  };
  return [
    { channel: 'mysql2:query', start, fail },
    { channel: 'mysql2:execute', start, fail },
  ];
}
