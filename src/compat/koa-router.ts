/**
 * Library internal of @koa/router (and koa-router, its older name): the route a request matched.
 * - Relies on: the router's middleware setting `ctx._matchedRoute` (the matched layer's path template, a string)
 *   before it runs that route's first middleware (`Router#routes()` / `middleware()`; undocumented, but read by
 *   @opentelemetry/instrumentation-koa too).
 * - Since: koa-router 7 and every @koa/router release; checked against the version in devDependencies.
 * - When it is gone ({@link matchedRouteOf} returns undefined): Koa SERVER spans get no `http.route` from the router
 *   (their name stays the method alone, as untraced by a route); nothing fails.
 * Used by src/instrumentations/routes/route-instrumentation.ts; test/unit/compat.test.mjs.
 */

/** `ctx._matchedRoute` when it is a string, else undefined. Never throws. */
export function matchedRouteOf(ctx: unknown): string | undefined {
  const route = (ctx as { _matchedRoute?: unknown } | null | undefined)?._matchedRoute;
  return typeof route === 'string' ? route : undefined;
}
