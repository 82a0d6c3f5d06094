import type { Attributes } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import { bound, detached, parsePort, redactQuery } from './request-values.js';
import type { QueryNameMatcher } from './request-values.js';

/** How request-derived values are cleaned before they become attributes. */
export interface RequestValuePolicy {
  /** Query parameter names whose values become `REDACTED` (see `queryNameMatcher` in request-values.ts). */
  redact: QueryNameMatcher;
  /** Bound on each value taken from the request, UTF-16 code units. */
  limit: number;
}

/**
 * The attributes of an HTTP SERVER span known when the request starts, per the stable HTTP
 * semantic conventions (the same set @opentelemetry/instrumentation-http emits): method, scheme,
 * path, query, server address and port (from the Host header), peer and client address, protocol
 * version, user agent. Every value a client controls is cut to `policy.limit`; sensitive query
 * values are redacted; `server.port` is set only when the Host header's port is 0–65535 in digits.
 * String slicing only, no URL object: this runs on every request. No value keeps a longer request
 * string alive (see `detached`), so a queued span holds about what the queue's estimate counts.
 * @see OpenTelemetry semantic conventions, "HTTP Server" (http.request.method, url.path, …)
 */
export function serverRequestAttributes(req: IncomingMessage, scheme: 'http' | 'https', policy: RequestValuePolicy): Attributes {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const socket = req.socket;
  const attributes: Attributes = {
    'http.request.method': req.method ?? 'GET',
    'url.scheme': scheme,
    // Path and query as copies of their own: a slice would keep the other part alive with it.
    'url.path': bound(q < 0 ? url : detached(url.slice(0, q)), policy.limit),
    'network.protocol.version': req.httpVersion,
    'network.peer.address': socket?.remoteAddress,
    'network.peer.port': socket?.remotePort,
    'client.address': socket?.remoteAddress,
  };
  if (q >= 0) attributes['url.query'] = bound(redactQuery(detached(url.slice(q + 1)), policy.redact), policy.limit);
  const host = req.headers.host;
  if (host) Object.assign(attributes, serverAddress(host, scheme, policy.limit));
  const userAgent = req.headers['user-agent'];
  if (userAgent) attributes['user_agent.original'] = bound(userAgent, policy.limit);
  return attributes;
}

/**
 * `server.address` and `server.port` from a Host header. `[::1]:8080` loses its brackets; a port
 * that is not 0–65535 in digits gives no `server.port` (a strict OTLP reader rejects an out-of-range
 * integer, and with it every span of the line).
 */
export function serverAddress(host: string, scheme: 'http' | 'https', limit: number): Attributes {
  const colon = host.lastIndexOf(':');
  // A bare IPv6 host has no port after the bracket.
  if (colon > host.lastIndexOf(']')) {
    return { 'server.address': bound(host.slice(0, colon).replace(/^\[|\]$/g, ''), limit), 'server.port': parsePort(host.slice(colon + 1)) };
  }
  return { 'server.address': bound(host.replace(/^\[|\]$/g, ''), limit), 'server.port': scheme === 'https' ? 443 : 80 };
}
