import type { Attributes } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';

/**
 * The attributes of an HTTP SERVER span known when the request starts, per the stable HTTP
 * semantic conventions (the same set @opentelemetry/instrumentation-http emits): method, scheme,
 * path, query, server address and port (from the Host header), peer and client address, protocol
 * version, user agent. String slicing only, no URL object: this runs on every request.
 * @see OpenTelemetry semantic conventions, "HTTP Server" (http.request.method, url.path, …)
 */
export function serverRequestAttributes(req: IncomingMessage, scheme: 'http' | 'https'): Attributes {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const socket = req.socket;
  const attributes: Attributes = {
    'http.request.method': req.method ?? 'GET',
    'url.scheme': scheme,
    'url.path': q < 0 ? url : url.slice(0, q),
    'network.protocol.version': req.httpVersion,
    'network.peer.address': socket?.remoteAddress,
    'network.peer.port': socket?.remotePort,
    'client.address': socket?.remoteAddress,
  };
  if (q >= 0) attributes['url.query'] = url.slice(q + 1);
  const host = req.headers.host;
  if (host) {
    const colon = host.lastIndexOf(':');
    // `[::1]:8080` keeps its brackets off; a bare IPv6 host has no port after the bracket.
    if (colon > host.lastIndexOf(']')) {
      attributes['server.address'] = host.slice(0, colon).replace(/^\[|\]$/g, '');
      attributes['server.port'] = Number(host.slice(colon + 1));
    } else {
      attributes['server.address'] = host.replace(/^\[|\]$/g, '');
      attributes['server.port'] = scheme === 'https' ? 443 : 80;
    }
  }
  const userAgent = req.headers['user-agent'];
  if (userAgent) attributes['user_agent.original'] = userAgent;
  return attributes;
}
