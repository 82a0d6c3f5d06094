import { readBoolean } from './boolean.js';
import { readChoice } from './choice.js';
import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/**
 * Query parameters whose values the semantic conventions say SHOULD be redacted by default
 * (replaced by `REDACTED`, the key kept). The conventions compare names as given; tracehook matches
 * every spelling (`x-amz-signature` too: see `queryNameMatcher`).
 * @see OpenTelemetry semantic conventions, attribute registry, `url.query` and `url.full`
 */
export const SEMCONV_SENSITIVE_QUERY_PARAMS = ['X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token', 'AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature'] as const;

/**
 * Parameters tracehook also redacts by default: the names that carry a credential in a URL in
 * widespread schemes. Redacting a harmless value costs a little debugging; keeping a live token
 * in span files, readable by whoever reads traces, costs an account.
 * - `access_token`: OAuth 2.0 bearer token in the query (RFC 6750 §2.3); `id_token`, `refresh_token`, `token`
 * - `code`: OAuth 2.0 authorization code in the redirect URI (RFC 6749 §4.1.2), a credential until redeemed
 * - `client_secret` (RFC 6749 §2.3.1), `password`, `passwd`, `secret`
 * - `api_key` (`apikey`, `api-key`, `apiKey`), `key` (Google APIs' `?key=`), `access_key` (API-key services' `?access_key=`)
 * - `jwt`, `auth` (Firebase's REST `?auth=`), `authorization`: a token by name
 * - `private_token`: GitLab's API token in the query
 * - `session_id`: a session in the URL is a login; bare `session` (often a harmless label) is left to
 *   `TRACEHOOK_REDACT_QUERY_PARAMS`
 * Matching ignores case, `-`, `_` and `.` (see `queryNameMatcher`): the list holds each name once in that sense.
 */
export const EXTRA_SENSITIVE_QUERY_PARAMS = [
  'access_token',
  'id_token',
  'refresh_token',
  'token',
  'code',
  'client_secret',
  'password',
  'passwd',
  'secret',
  'api_key',
  'key',
  'access_key',
  'jwt',
  'auth',
  'authorization',
  'private_token',
  'session_id',
] as const;

/** The names redacted when `TRACEHOOK_REDACT_QUERY_PARAMS` adds none: the conventions' list and tracehook's. */
export const DEFAULT_REDACTED_QUERY_PARAMS: readonly string[] = [...SEMCONV_SENSITIVE_QUERY_PARAMS, ...EXTRA_SENSITIVE_QUERY_PARAMS];

/**
 * Default bound on each attribute value taken from a request (url.path, url.query, user agent,
 * server.address, request id…), in UTF-16 code units as the SDK counts: 2048 is the URL length
 * most browsers, CDNs and the sitemap protocol have long kept to, and well above any real user agent
 * (≈ 100–400). Without it, Node's 16 KiB header limit lets one request put ≈ 16 KiB into each of
 * several attributes of every span it makes.
 */
export const DEFAULT_REQUEST_VALUE_LENGTH_LIMIT = 2048;

/** `TRACEHOOK_INCOMING_TRACE` values. */
export type IncomingTracePolicy = 'continue' | 'link' | 'ignore';

/** What tracehook records of incoming requests, and what it trusts of them. */
export interface RequestDataConfig {
  /**
   * Query parameter names whose values are replaced by `REDACTED` in `url.query` and `url.full`
   * (any spelling: case, `-`, `_`, `.` and an array suffix `[]` do not matter): the semantic
   * conventions' list, tracehook's extras, then `TRACEHOOK_REDACT_QUERY_PARAMS`.
   */
  redactQueryParams: string[];
  /**
   * Bound on each request-derived attribute value, UTF-16 code units: `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`,
   * else `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else {@link DEFAULT_REQUEST_VALUE_LENGTH_LIMIT}.
   */
  requestValueLengthLimit: number;
  /**
   * `TRACEHOOK_INCOMING_TRACE`: `continue` (default) makes the incoming traceparent the SERVER span's
   * parent; `link` starts a new trace with a link to it; `ignore` starts a new trace. Incoming baggage
   * is dropped under `link` and `ignore`.
   */
  incomingTrace: IncomingTracePolicy;
  /**
   * `TRACEHOOK_HTTP_CLIENT_ROOT_SPANS`, default true: an outgoing HTTP or fetch request made outside
   * any trace gets a CLIENT span of its own, the root of a new trace, and sends its `traceparent` (as
   * OpenTelemetry's instrumentation-http and instrumentation-undici, dd-trace and EDOT do). False:
   * such a request gets no span and no trace headers (their `requireParentforOutgoingSpans` /
   * `requireParentforSpans`); requests inside a trace are unchanged.
   */
  clientRootSpans: boolean;
}

/** Reads {@link RequestDataConfig} from `env`; bad values are pushed onto `errors` with their fallback. Never throws. */
export function readRequestDataConfig(env: Env, errors: ConfigError[]): RequestDataConfig {
  const added = (env.TRACEHOOK_REDACT_QUERY_PARAMS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const redactQueryParams = [...new Set([...DEFAULT_REDACTED_QUERY_PARAMS, ...added])];

  let requestValueLengthLimit = DEFAULT_REQUEST_VALUE_LENGTH_LIMIT;
  for (const variable of ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT']) {
    const raw = readString(env, variable);
    if (raw === undefined) continue;
    const n = Number(raw);
    if (/^\d+$/.test(raw) && Number.isSafeInteger(n)) {
      requestValueLengthLimit = n;
      break;
    }
    // The SDK reads these variables too and already reports a value that is not a number at all.
    if (!Number.isNaN(n)) errors.push(fallbackError(variable, raw, `a whole number >= 0; request values are cut at ${DEFAULT_REQUEST_VALUE_LENGTH_LIMIT}`));
  }

  const incomingTrace = readChoice<IncomingTracePolicy>(env, 'TRACEHOOK_INCOMING_TRACE', ['continue', 'link', 'ignore'], errors);
  const clientRootSpans = readBoolean(env, 'TRACEHOOK_HTTP_CLIENT_ROOT_SPANS', true, errors);
  return { redactQueryParams, requestValueLengthLimit, incomingTrace, clientRootSpans };
}
