import type { RequestDataConfig } from '../../config/request-data.js';
import { queryNameMatcher, redactQuery } from './request-values.js';
import type { QueryNameMatcher } from './request-values.js';

/** What instrumentation-undici (0.33) hands `startSpanHook`: undici's request, from its `undici:request:create` channel. */
interface UndiciRequest {
  origin?: unknown;
  path?: unknown;
}

/**
 * Options for @opentelemetry/instrumentation-undici (global fetch and undici's own API) that redact its CLIENT
 * spans' URL as tracehook's options make instrumentation-http redact its own: the values of sensitive query
 * parameters (tracehook's list, see `RequestDataConfig.redactQueryParams`) in `url.full` and `url.query`. Left
 * to itself it records the request URL as it is, `?api_key=…` included. (Credentials never reach it: fetch
 * refuses a URL with them, and undici drops them from the origin.) The attributes `startSpanHook` returns
 * replace its own; a URL with no `?` costs one `indexOf`.
 * @see OpenTelemetry semantic conventions, attribute registry: `url.full` and `url.query` (what to redact)
 */
export function undiciOptions(requestData: RequestDataConfig): Record<string, unknown> {
  const names = queryNameMatcher(requestData.redactQueryParams);
  return { startSpanHook: (request: UndiciRequest) => redactedUrl(request, names) };
}

/** `url.full` and `url.query` as instrumentation-undici computes them (`new URL(path, origin)`), redacted; undefined when nothing is to be. */
function redactedUrl(request: UndiciRequest, names: QueryNameMatcher): Record<string, string> | undefined {
  const path = typeof request.path === 'string' ? request.path : '';
  if (path.indexOf('?') < 0) return undefined;
  let url: URL;
  try {
    url = new URL(path, String(request.origin));
  } catch {
    return undefined;
  }
  const { search, hash, href } = url;
  const query = search.length > 1 ? `?${redactQuery(search.slice(1), names)}` : search;
  if (query === search) return undefined;
  return { 'url.full': href.slice(0, href.length - search.length - hash.length) + query + hash, 'url.query': query };
}
