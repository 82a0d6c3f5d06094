import type { Context, Span } from '@opentelemetry/api';
import * as api from '@opentelemetry/api';
import { RPCType, getRPCMetadata, setRPCMetadata } from '@opentelemetry/core';
import type { RPCMetadata } from '@opentelemetry/core';
import { bound } from '../http/request-values.js';
import { stateKey } from '../../state-key.js';

// Shared by every copy of this build in one process (a bundle beside unbundled files), under a versioned key.
const kRpc = stateKey('http.rpcMetadata');
type WithRpc = { [kRpc]?: RPCMetadata };

/**
 * The context an HTTP SERVER span's handlers run in, carrying OpenTelemetry's RPC metadata
 * (`@opentelemetry/core` setRPCMetadata): framework instrumentations (express, koa, fastify,
 * nestjs-core, hapi, restify) and tracehook's light route hooks write the matched route there,
 * as they do for @opentelemetry/instrumentation-http. The metadata is also kept on `response`, so
 * a hook that has the response but runs outside the request's context still finds it.
 */
export function withRouteMetadata(ctx: Context, span: Span, response: object): Context {
  const rpc: RPCMetadata = { type: RPCType.HTTP, span };
  (response as WithRpc)[kRpc] = rpc;
  return setRPCMetadata(ctx, rpc);
}

/**
 * Records `route` (a route template such as `/users/:id`, never the actual path) as the matched
 * route of the request `response` answers; the last call wins, as the innermost router matches
 * last. Falls back to the active context's RPC metadata (the stock instrumentation-http's).
 */
export function setHttpRoute(response: unknown, route: string): void {
  setRoute((response as WithRpc | undefined)?.[kRpc] ?? getRPCMetadata(api.context.active()), route);
}

/** Records `route` (a template) as the matched route of the HTTP request whose RPC metadata `ctx` carries, if any. */
export function setContextRoute(ctx: Context, route: string): void {
  setRoute(getRPCMetadata(ctx), route);
}

function setRoute(rpc: RPCMetadata | undefined, route: string): void {
  if (rpc?.type === RPCType.HTTP) rpc.route = route;
}

/**
 * At the end of a SERVER span: with a matched route, names it `METHOD route` and sets `http.route`,
 * the route cut to `limit` UTF-16 code units as `url.path` is (a framework instrumentation may hand
 * over text the caller chose); without one (plain node:http) the name stays the method.
 * @see OpenTelemetry semantic conventions, "HTTP Server semantic conventions", span name and `http.route`
 */
export function applyHttpRoute(span: Span, response: object, method: string | undefined, limit: number): void {
  const route = (response as WithRpc)[kRpc]?.route;
  if (route) nameByRoute(span, route, method, limit);
}

/** Sets `http.route` to `route` cut to `limit`, and the span name to `METHOD route`. */
export function nameByRoute(span: Span, route: string, method: string | undefined, limit: number): void {
  const bounded = bound(route, limit);
  span.setAttribute('http.route', bounded);
  span.updateName(`${method ?? 'GET'} ${bounded}`);
}
