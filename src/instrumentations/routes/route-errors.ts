/**
 * Where Express, Fastify, Koa and NestJS surface a request's error, each noted for the request's
 * SERVER span by its response (`noteServerError`): the response, not the active span, ties the error
 * to the request, so a child span active when it was thrown does not take it. Each hook runs only
 * once an error is being handled (the Express final handler's wrapper aside: one function per
 * request), so the happy path pays nothing more, and no span is made per middleware.
 */
import { noteServerError } from '../http/server-error.js';
import { markWrapper } from '../../patch/wrap.js';
import { setHttpRoute } from './http-route.js';

type HandleError = (this: unknown, error: unknown, req: unknown, res: unknown, next: unknown) => unknown;
type Done = (this: unknown, err?: unknown) => unknown;
type FinalHandler = (this: unknown, req: unknown, res: unknown, options?: unknown) => Done;
type FastifyReply = { raw?: unknown; request?: { is404?: boolean; routeOptions?: { url?: unknown } } };
type FastifyHandleError = (this: unknown, reply: FastifyReply | undefined, error: unknown, cb?: unknown) => unknown;
type KoaOnerror = (this: { res?: unknown } | undefined, err: unknown) => unknown;
type ArgumentsHost = { getType?(): unknown; getArgByIndex?(index: number): unknown };
type NestCatch = (this: unknown, exception: unknown, host: ArgumentsHost | undefined) => unknown;

/**
 * `Layer#handle_error` (Express 4) / `Layer#handleError` (router 2, Express 5): Express hands a layer
 * the error of `next(err)`, or of a handler that threw or rejected, on its way to an error handler.
 */
export function wrapHandleError(original: HandleError): HandleError {
  return function handleError(this: unknown, error, req, res) {
    noteServerError(res, error);
    return Reflect.apply(original, this, arguments);
  } as HandleError;
}

/**
 * The `finalhandler` package's export (Express 4 and 5 end every request no layer answered with it):
 * the function it returns is given the error no error handler took.
 */
export function wrapFinalhandler(original: FinalHandler): FinalHandler {
  const finalhandler = function (this: unknown, req: unknown, res: unknown) {
    const done = Reflect.apply(original, this, arguments) as Done;
    if (typeof done !== 'function') return done;
    return function (this: unknown, err?: unknown) {
      noteServerError(res, err);
      return Reflect.apply(done, this, arguments);
    };
  } as FinalHandler;
  return markWrapper(finalhandler, original, 'routes.finalhandler');
}

/**
 * `handleError(reply, error, cb)` of Fastify 4 and 5 (`fastify/lib/error-handler.js`), which every
 * error sent as a reply goes through (a handler's, a hook's, a schema validation's), before the error
 * handler runs. The route is recorded there too: a validation error answers before the handler starts,
 * where Fastify 5's diagnostics channel would have told the route.
 */
export function wrapFastifyHandleError(original: FastifyHandleError): FastifyHandleError {
  return function handleError(this: unknown, reply, error) {
    const raw = reply?.raw;
    noteServerError(raw, error);
    try {
      const request = reply?.request;
      const url = request && request.is404 !== true ? request.routeOptions?.url : undefined;
      if (typeof url === 'string') setHttpRoute(raw, url);
    } catch {
      // A getter of another Fastify release that throws: no route rather than a new error.
    }
    return Reflect.apply(original, this, arguments);
  } as FastifyHandleError;
}

/** Koa's `ctx.onerror(err)` (`koa/lib/context.js`), which answers every error a middleware threw. */
export function wrapKoaOnerror(original: KoaOnerror): KoaOnerror {
  return function onerror(this: { res?: unknown } | undefined, err) {
    noteServerError(this?.res, err);
    return Reflect.apply(original, this, arguments);
  } as KoaOnerror;
}

/**
 * NestJS's `BaseExceptionFilter#catch(exception, host)`, which answers what a controller threw (the
 * built-in filter, and custom filters that extend it and call `super.catch`), for HTTP contexts only.
 * The response is the adapter's: Express's is the `ServerResponse`, a Fastify reply holds it as `raw`.
 */
export function wrapNestCatch(original: NestCatch): NestCatch {
  return function (this: unknown, exception, host) {
    if (host && typeof host.getArgByIndex === 'function' && (typeof host.getType !== 'function' || host.getType() === 'http')) {
      const res = host.getArgByIndex(1) as { raw?: unknown } | undefined;
      noteServerError(res?.raw ?? res, exception);
    }
    return Reflect.apply(original, this, arguments);
  } as NestCatch;
}
