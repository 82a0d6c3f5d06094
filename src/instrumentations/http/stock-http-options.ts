import type { Span } from '@opentelemetry/api';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { RequestDataConfig } from '../../config/request-data.js';
import { markClientGone } from './client-gone.js';
import { addIncomingLink, expectIncomingExtract } from './incoming-trace.js';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- named by a {@link} in the TSDoc below
import type { incomingTracePropagator } from './incoming-trace.js';
import { bound } from './request-values.js';
import { serverRequestAttributes } from './server-attributes.js';

/** The attributes instrumentation-http takes from what the client sent, replaced by tracehook's. */
const REQUEST_DERIVED = ['url.path', 'url.query', 'server.address', 'server.port', 'user_agent.original'];

type Attributes = Record<string, unknown>;

/**
 * Options for @opentelemetry/instrumentation-http (0.223.0) that give its spans what tracehook's
 * own server instrumentation gives: sensitive query values redacted on both sides (its
 * `redactedQueryParams` / `redactedQueryParamsServer`, with tracehook's list), and on SERVER spans
 * the request-derived attributes computed as the fast instrumentation does (see
 * `serverRequestAttributes`), every other string attribute (a `client.address` from `Forwarded`, say)
 * cut to the request value bound, a response that closed before it finished marked ERROR with
 * `error.type` (it ends such spans with status UNSET), and `TRACEHOOK_INCOMING_TRACE` applied with
 * {@link incomingTracePropagator}. Credentials in a client URL are already `REDACTED:REDACTED@` in
 * its `url.full`.
 */
export function stockHttpOptions(requestData: RequestDataConfig): Record<string, unknown> {
  const limit = requestData.requestValueLengthLimit;
  const policy = requestData.incomingTrace !== 'continue';
  const values = { redact: new Set(requestData.redactQueryParams), limit };
  return {
    redactedQueryParams: requestData.redactQueryParams,
    redactedQueryParamsServer: requestData.redactQueryParams,
    // Merged over its own attributes: the request-derived ones become exactly the fast instrumentation's
    // (raw query with values redacted, server.port only when valid: an undefined removes a bad one).
    startIncomingSpanHook: (request: IncomingMessage) => {
      if (policy) expectIncomingExtract(request.headers);
      const all = serverRequestAttributes(request, isTls(request) ? 'https' : 'http', values);
      return Object.fromEntries(REQUEST_DERIVED.map((key) => [key, all[key]]));
    },
    requestHook: (span: Span, request: IncomingMessage | ClientRequest) => {
      if (!('headers' in request && typeof request.httpVersion === 'string')) return;
      boundStrings(span, limit);
      if (policy) addIncomingLink(span, request.headers);
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
