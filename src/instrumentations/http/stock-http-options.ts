import type { Span } from '@opentelemetry/api';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { RequestDataConfig } from '../../config/request-data.js';
import { markClientGone } from './client-gone.js';
import { addIncomingLink, expectIncomingExtract } from './incoming-trace.js';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- named by a {@link} in the TSDoc below
import type { incomingTracePropagator } from './incoming-trace.js';
import { bound, queryNameMatcher, redactUrlQuery } from './request-values.js';
import type { QueryNameMatcher } from './request-values.js';
import { nameByRoute } from '../routes/http-route.js';
import { serverRequestAttributes } from './server-attributes.js';
import { applyServerError } from './server-error.js';

/** The attributes instrumentation-http takes from what the client sent, replaced by tracehook's. */
const REQUEST_DERIVED = ['url.path', 'url.query', 'server.address', 'server.port', 'user_agent.original'];

type Attributes = Record<string, unknown>;

/**
 * Options for @opentelemetry/instrumentation-http (0.223.0) that give its spans what tracehook's
 * own server instrumentation gives: sensitive query values redacted on both sides, by tracehook's
 * matcher (`queryNameMatcher`: any spelling of a listed name; its own `redactedQueryParams`, also
 * given tracehook's list, compares names as given, so its CLIENT `url.full` is redacted again in
 * `requestHook`), and on SERVER spans
 * the request-derived attributes computed as the fast instrumentation does (see
 * `serverRequestAttributes`), every other string attribute (a `client.address` from `Forwarded`, say)
 * cut to the request value bound, a response that closed before it finished marked ERROR with
 * `error.type` (it ends such spans with status UNSET), the error a framework hook noted for the response
 * recorded as the fast instrumentation records it (`applyServerError`), and `TRACEHOOK_INCOMING_TRACE` applied with
 * {@link incomingTracePropagator}. Credentials in a client URL are already `REDACTED:REDACTED@` in
 * its `url.full`.
 */
export function stockHttpOptions(requestData: RequestDataConfig): Record<string, unknown> {
  const limit = requestData.requestValueLengthLimit;
  const policy = requestData.incomingTrace !== 'continue';
  const values = { redact: queryNameMatcher(requestData.redactQueryParams), limit };
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
      if (!('headers' in request && typeof request.httpVersion === 'string')) return redactUrlFull(span, values.redact);
      boundStrings(span, limit);
      if (policy) addIncomingLink(span, request.headers);
    },
    // Called after it named a SERVER span by its route: the route is cut as the fast instrumentation cuts it.
    applyCustomAttributesOnSpan: (span: Span, request: { method?: string }, response: ServerResponse | IncomingMessage) => {
      const res = response as ServerResponse;
      const gone = typeof res.writableFinished === 'boolean' && !res.writableFinished;
      if (gone) markClientGone(span, res);
      applyServerError(span, res, !gone && res.statusCode >= 500);
      const route = attributesOf(span)?.['http.route'];
      if (typeof route === 'string' && route.length > limit) nameByRoute(span, route, request?.method, limit);
    },
  };
}

function isTls(request: IncomingMessage): boolean {
  return (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
}

// The SDK's Span (and tracehook's lean span) keeps its attributes readable until it ends; a non-recording span has none.
function attributesOf(span: Span): Attributes | undefined {
  return (span as unknown as { attributes?: Attributes }).attributes;
}

/** A CLIENT span's `url.full` (the query as instrumentation-http re-encodes it) with every sensitive value redacted. */
function redactUrlFull(span: Span, isSensitive: QueryNameMatcher): void {
  const full = attributesOf(span)?.['url.full'];
  if (typeof full !== 'string') return;
  const redacted = redactUrlQuery(full, isSensitive);
  if (redacted !== full) span.setAttribute('url.full', redacted);
}

function boundStrings(span: Span, limit: number): void {
  const attributes = attributesOf(span);
  if (!attributes) return;
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (typeof value === 'string' && value.length > limit) span.setAttribute(key, bound(value, limit));
  }
}
