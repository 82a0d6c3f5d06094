import type { Span } from '@opentelemetry/api';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { RequestDataConfig } from '../../config/request-data.js';
import { markClientGone } from './client-gone.js';
import { bound } from './request-values.js';
import { serverAddress } from './server-attributes.js';

type Attributes = Record<string, unknown>;

/**
 * Options for @opentelemetry/instrumentation-http (0.223.0) that give its spans what tracehook's
 * own server instrumentation gives: sensitive query values redacted on both sides (its
 * `redactedQueryParams` / `redactedQueryParamsServer`, with tracehook's list), and on SERVER spans
 * every string attribute cut to the request value bound, `server.port` only when valid, and a
 * response that closed before it finished marked ERROR with `error.type` (it ends such spans
 * with status UNSET). Credentials in a client URL are already `REDACTED:REDACTED@` in its `url.full`.
 */
export function stockHttpOptions(requestData: RequestDataConfig): Record<string, unknown> {
  const limit = requestData.requestValueLengthLimit;
  return {
    redactedQueryParams: requestData.redactQueryParams,
    redactedQueryParamsServer: requestData.redactQueryParams,
    // Merged over its own attributes: an undefined port removes one it took from a bad Host header.
    startIncomingSpanHook: (request: IncomingMessage) => {
      const host = request.headers.host;
      return host ? { 'server.port': serverAddress(host, isTls(request) ? 'https' : 'http', limit)['server.port'] } : {};
    },
    requestHook: (span: Span, request: IncomingMessage | ClientRequest) => {
      if ('headers' in request && typeof (request as IncomingMessage).httpVersion === 'string') boundStrings(span, limit);
    },
    applyCustomAttributesOnSpan: (span: Span, _request: unknown, response: ServerResponse | IncomingMessage) => {
      const res = response as ServerResponse;
      if (typeof res.writableFinished === 'boolean' && !res.writableFinished) markClientGone(span, res);
    },
  };
}

function isTls(request: IncomingMessage): boolean {
  return (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
}

// The SDK's Span keeps its attributes readable until it ends; a non-recording span has none.
function boundStrings(span: Span, limit: number): void {
  const attributes = (span as unknown as { attributes?: Attributes }).attributes;
  if (!attributes) return;
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (typeof value === 'string' && value.length > limit) span.setAttribute(key, bound(value, limit));
  }
}
