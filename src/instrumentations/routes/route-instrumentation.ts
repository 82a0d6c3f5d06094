import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import { matchedRouteOf } from '../../compat/koa-router.js';
import { TRACER_VERSION } from '../../context/tracer.js';
import { setHttpRoute } from './http-route.js';
import type { PatchSite } from '../../patch/wrap.js';
import { markWrapper, unwrap, wrap } from '../../patch/wrap.js';
import { isTemplateBase, wrapHandleRequest, wrapUse } from './express-mounts.js';

type Dispatch = (this: { path?: unknown }, req: { baseUrl?: string }, res: unknown, ...rest: unknown[]) => unknown;
type KoaMiddleware = (this: unknown, ctx: { res?: unknown } | undefined, next: unknown) => unknown;
type FastifyRequest = { routeOptions?: { url?: unknown }; routerPath?: unknown };
type FastifyInstance = { addHook(name: 'onRequest', hook: (request: FastifyRequest, reply: { raw?: unknown }, done: () => void) => void): unknown };
type FastifyFactory = ((this: unknown, ...args: unknown[]) => FastifyInstance) & Record<string, unknown>;
type AnyMethod = (this: unknown, ...args: never[]) => unknown;
type Methods = Record<string, AnyMethod>;
type RouterPrototype = { middleware(this: unknown, ...args: unknown[]): KoaMiddleware; routes?: unknown };

/** Fastify 5 publishes this for each request that reached a route handler, with the route's template. */
const FASTIFY_HANDLER_START = 'tracing:fastify.request.handler:start';

const DISPATCH_SITE = { component: 'instrumentations', id: 'routes.Route#dispatch', otherwise: 'Express SERVER spans get no http.route' };
const USE_SITE = { component: 'instrumentations', id: 'routes.Router#use', otherwise: 'Express routes under a mounted router get no http.route' };
const LAYER_SITE = { component: 'instrumentations', id: 'routes.Layer#handleRequest', otherwise: 'Express routes under a mounted router get no http.route' };
const KOA_SITE = { component: 'instrumentations', id: 'routes.Router#middleware', otherwise: 'Koa SERVER spans get no http.route' };

/**
 * The matched route of Express 4 and 5 (and NestJS on Express), Fastify and Koa with @koa/router,
 * handed to the HTTP SERVER span as OpenTelemetry's RPC metadata, without the framework
 * instrumentations' spans per middleware. One small patch or subscription per framework:
 * - Express 4 (`express/lib/router/route.js`) and Express 5 (`router/lib/route.js`): `Route#dispatch`,
 *   which runs when a route matched: the route is `req.baseUrl` + the route's path, when the base is
 *   made of mount patterns only; under a mount that matched other text (`app.use('/users/:id', router)`:
 *   Express keeps the actual path) there is no route rather than the caller's text. `Router#use` and
 *   `Layer#handle_request` / `#handleRequest` (`express/lib/router/`, `router/`) tell which (see
 *   `express-mounts.ts`).
 * - Fastify 5: the `tracing:fastify.request.handler:start` diagnostics channel (`route.url`); Fastify 4:
 *   an `onRequest` hook added to each root instance the factory creates (`request.routeOptions.url`).
 * - @koa/router (and koa-router): the router's middleware, after it stored `ctx._matchedRoute`.
 * Loaded with the HTTP instrumentation; each patch is applied only if and when the app loads that module.
 */
export class RouteInstrumentation extends InstrumentationBase {
  constructor(config: InstrumentationConfig = {}) {
    super('@tracehook/register/http-route', TRACER_VERSION ?? '0.0.0', config);
  }

  override enable(): void {
    super.enable();
    subscribe(FASTIFY_HANDLER_START, onFastifyHandler);
  }

  override disable(): void {
    super.disable();
    unsubscribe(FASTIFY_HANDLER_START, onFastifyHandler);
  }

  protected init() {
    // One method patched: `at(exports)` is the object holding it (the module's exports or its prototype).
    const onMethod = (at: (exports: Methods & { prototype?: Methods }) => Methods | undefined, name: string, site: PatchSite, wrapper: (f: never) => unknown) => ({
      patch: (exports: Methods) => {
        wrap(at(exports), name, site, wrapper as unknown as (f: AnyMethod) => AnyMethod);
        return exports;
      },
      unpatch: (exports?: Methods) => {
        if (exports) unwrap(at(exports), name, site);
      },
    });
    const method = (file: string, ...args: Parameters<typeof onMethod>) => {
      const { patch, unpatch } = onMethod(...args);
      return new InstrumentationNodeModuleFile(file, ['*'], patch, unpatch);
    };
    const self = (exports: Methods) => exports;
    const proto = (exports: { prototype?: Methods }) => exports?.prototype;
    const routerUse = onMethod(proto, 'use', USE_SITE, wrapUse);
    const koaRouter = (name: string) =>
      new InstrumentationNodeModuleDefinition(
        name,
        ['*'],
        (exports: RouterExports) => {
          const proto = routerClass(exports)?.prototype;
          if (proto && typeof proto.middleware === 'function') {
            // Older releases alias `routes = middleware`; keep the alias pointing at the wrapped one.
            const alias = proto.routes === proto.middleware;
            wrap(proto, 'middleware', KOA_SITE, wrapKoaMiddleware);
            if (alias) proto.routes = proto.middleware;
          }
          return exports;
        },
        (exports: RouterExports) => {
          unwrap(routerClass(exports)?.prototype, 'middleware', KOA_SITE);
        },
      );
    return [
      // Fastify 5 reports through its diagnostics channel; Fastify 4 publishes none.
      new InstrumentationNodeModuleDefinition('fastify', ['>=4 <5'], (exports: FastifyFactory) => (typeof exports === 'function' ? wrapFastify4(exports) : exports)),
      new InstrumentationNodeModuleDefinition('express', ['>=4 <5'], undefined, undefined, [
        method('express/lib/router/route.js', proto, 'dispatch', DISPATCH_SITE, wrapDispatch),
        method('express/lib/router/index.js', self, 'use', USE_SITE, wrapUse),
        method('express/lib/router/layer.js', proto, 'handle_request', LAYER_SITE, wrapHandleRequest),
      ]),
      // The package's main file (`Router`) comes to the module's own hooks, not as a file.
      new InstrumentationNodeModuleDefinition('router', ['>=2 <3'], routerUse.patch, routerUse.unpatch, [
        method('router/lib/route.js', proto, 'dispatch', DISPATCH_SITE, wrapDispatch),
        method('router/lib/layer.js', proto, 'handleRequest', LAYER_SITE, wrapHandleRequest),
      ]),
      koaRouter('@koa/router'),
      koaRouter('koa-router'),
    ];
  }
}

type RouterExports = { prototype?: RouterPrototype; default?: { prototype?: RouterPrototype }; [Symbol.toStringTag]?: unknown };

/** The Router class: the CommonJS exports, or an ES module namespace's default export (a bundle's ES-module build, src/bundler/). */
function routerClass(exports: RouterExports | undefined): { prototype?: RouterPrototype } | undefined {
  return exports?.[Symbol.toStringTag] === 'Module' ? exports.default : exports;
}

// A module-level function: InstrumentationBase's constructor enables before class fields exist.
function onFastifyHandler(message: unknown): void {
  const { reply, route } = message as { reply?: { raw?: unknown }; route?: { url?: unknown } };
  if (typeof route?.url === 'string') setHttpRoute(reply?.raw, route.url);
}

/** The Fastify 4 factory, each instance it makes given a root `onRequest` hook that records the route. */
function wrapFastify4(original: FastifyFactory): FastifyFactory {
  const fastify = function (this: unknown, ...args: unknown[]) {
    const app = original.apply(this, args);
    app.addHook('onRequest', (request, reply, done) => {
      // `routerPath` only before 4.10 had `routeOptions`: reading it later prints a deprecation warning.
      const url = request.routeOptions ? request.routeOptions.url : request.routerPath;
      if (typeof url === 'string') setHttpRoute(reply.raw, url);
      done();
    });
    return app;
  } as FastifyFactory;
  Object.assign(fastify, original);
  markWrapper(fastify, original, 'routes.fastify');
  // `require('fastify')`, `.fastify` and `.default` are the same function.
  fastify.fastify = fastify;
  fastify.default = fastify;
  return fastify;
}

function wrapDispatch(original: Dispatch): Dispatch {
  return function dispatch(this: { path?: unknown }, req, res, ...rest) {
    if (typeof this.path === 'string' && isTemplateBase(req ?? {})) {
      const base = req?.baseUrl ?? '';
      setHttpRoute(res, base && this.path === '/' ? base : base + this.path);
    }
    return original.call(this, req, res, ...rest);
  };
}

function wrapKoaMiddleware(original: RouterPrototype['middleware']): RouterPrototype['middleware'] {
  return function middleware(this: unknown, ...args: unknown[]) {
    const inner = original.apply(this, args);
    const outer: KoaMiddleware = function (this: unknown, ctx, next) {
      const result = inner.call(this, ctx, next);
      // The router stores the matched route before it runs the route's first middleware.
      const route = matchedRouteOf(ctx);
      if (route !== undefined) setHttpRoute(ctx?.res, route);
      return result;
    };
    // The router hangs itself on its middleware (`middleware.router`), and nested routers read it.
    return Object.assign(outer, inner);
  };
}
