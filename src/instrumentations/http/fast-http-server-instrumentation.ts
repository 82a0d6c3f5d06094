import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Span } from '@opentelemetry/api';
import * as api from '@opentelemetry/api';
import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { IncomingTracePolicy } from '../../config/request-data.js';
import { DEFAULT_REDACTED_QUERY_PARAMS, DEFAULT_REQUEST_VALUE_LENGTH_LIMIT } from '../../config/request-data.js';
import { REQUEST_ID_KEY, acceptRequestId } from '../../context/request-id.js';
import { TRACER_VERSION } from '../../context/tracer.js';
import { swapContext } from '../../context/context-storage.js';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- named by a {@link} in the TSDoc below
import { CLIENT_GONE_ERROR_TYPE, endClientGone, handlerThrew } from './client-gone.js';
import { incomingParent } from './incoming-trace.js';
import type { RequestValuePolicy } from './server-attributes.js';
import { applyHttpRoute, withRouteMetadata } from '../routes/http-route.js';
import { applyServerError } from './server-error.js';
import { serverRequestAttributes } from './server-attributes.js';
import type { PatchSite } from '../../patch/wrap.js';
import { unwrap, wrap } from '../../patch/wrap.js';
import { logDebug } from '../../diag/logger.js';
import { isHttpsLoaded } from './https-loaded.js';
import { isBuiltinLoaded, whenBuiltinLoaded } from '../../patch/builtin-loaded.js';
import { queryNameMatcher } from './request-values.js';
import { bindEventContext, patchEventContext, unpatchEventContext } from './event-context.js';
import type { MessageClasses } from './event-context.js';
import { moduleLoad } from '../../compat/node-module.js';

// Read once: the API's CommonJS build exports through getters, and each read is a call per request.
const { SpanKind, SpanStatusCode, context, trace } = api;

const kSpan = Symbol('tracehook.http.serverSpan');
const RESPONSE_FINISH = 'http.server.response.finish';
const NAME = '@tracehook/register/http-server';

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
type ServerPrototype = { emit: Emit };
type HttpExports = { Server: { prototype: ServerPrototype } } & MessageClasses;
type TracedResponse = ServerResponse & { [kSpan]?: Span };

/** Options of {@link FastHttpServerInstrumentation}; each defaults to tracehook's default configuration. */
export interface FastHttpServerOptions {
  /** Query parameter names whose values become `REDACTED` in `url.query` (any spelling: see `queryNameMatcher`). */
  redactQueryParams?: readonly string[];
  /** Bound on each request-derived attribute value, UTF-16 code units; default 2048. */
  requestValueLengthLimit?: number;
  /** What an incoming traceparent becomes (`TRACEHOOK_INCOMING_TRACE`); default `continue`. */
  incomingTrace?: IncomingTracePolicy;
}

/**
 * Configuration of {@link FastHttpServerInstrumentation}: OpenTelemetry's `InstrumentationConfig`
 * (`enabled`, default true: false creates it disabled) and {@link FastHttpServerOptions}.
 * `setConfig()` applies new options to the requests that follow.
 */
export interface FastHttpServerInstrumentationConfig extends InstrumentationConfig, FastHttpServerOptions {}

const SITES: Record<'http' | 'https', PatchSite> = {
  http: { component: 'http', id: 'http.Server#emit', otherwise: 'HTTP requests get no SERVER span' },
  https: { component: 'http', id: 'https.Server#emit', otherwise: 'HTTPS requests get no SERVER span' },
};

// The request value bound of the last configured instance (routes are applied by module-level listeners).
let routeLimit = DEFAULT_REQUEST_VALUE_LENGTH_LIMIT;

// A response that closes before 'finish': the client went away (or the socket was destroyed). One
// shared listener, no closure per request.
function onResponseClose(this: TracedResponse): void {
  const span = this[kSpan];
  if (!span) return;
  this[kSpan] = undefined;
  applyHttpRoute(span, this, this.req?.method, routeLimit);
  // The client-gone status stays; an error the framework surfaced still says what happened.
  applyServerError(span, this, false);
  endClientGone(span, this);
}

/**
 * node:http or node:https, loaded past require-in-the-middle: a built-in first required through its
 * hook before an instrumentation registered for it is cached unpatched there, and
 * instrumentation-http (created after this one, or after any other instrumentation) would then never
 * patch the HTTP client. `Module._load` is a Node.js internal (stable since Node.js 0.x, and what
 * `Module.prototype.require` calls); without it, `require` is used and that is said at DEBUG level.
 */
function builtin(name: 'http' | 'https'): HttpExports {
  const load = moduleLoad();
  if (load !== undefined) return load(`node:${name}`, null, false) as HttpExports;
  logDebug('http', `Module._load not found (Node.js ${process.version}): node:${name} is required through the module hooks`);
  return require(`node:${name}`);
}

// A module-level function: InstrumentationBase's constructor may enable before class fields exist.
function onResponseFinish(message: unknown): void {
  const { response } = message as { response: TracedResponse };
  const span = response[kSpan];
  if (!span) return;
  response[kSpan] = undefined;
  const status = response.statusCode;
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  applyServerError(span, response, status >= 500);
  applyHttpRoute(span, response, response.req?.method, routeLimit);
  span.end();
}

/**
 * HTTP and HTTPS SERVER spans at a fraction of the stock instrumentation's cost (TRACEHOOK_HTTP_INSTRUMENTATION=fast,
 * the default; `stock` selects @opentelemetry/instrumentation-http for the server side too).
 *
 * The span starts where the server emits `'request'`: `Server.prototype.emit` is wrapped so the
 * app's request listeners run inside the span's context (an immutable AsyncLocalStorage value:
 * nothing the handler schedules can see another request's span), and so do the listeners of the
 * request's and response's events (`'data'`, `'end'`, `'finish'`: see `bindEventContext`). It ends on the
 * `http.server.response.finish` diagnostics channel; one shared `'close'` listener per response
 * catches the responses that never finish. Incoming
 * `traceparent`/`tracestate`/`baggage` are extracted with the configured propagators and used as
 * `TRACEHOOK_INCOMING_TRACE` says (see `incomingParent`). An `x-request-id` header of at most 128
 * visible ASCII characters becomes the request id of the context (see `withRequestId`).
 * The span is named `METHOD route` with `http.route` when a framework hook set the route in the
 * context's RPC metadata (see `withRouteMetadata`), else the method; a 5xx status sets status ERROR, with the
 * message, `error.type` and an `exception` event of the error a framework hook noted for the response (see
 * `applyServerError`; a 4xx keeps status UNSET and gets the event only). A
 * response that closes before it finished (the client went away) ends the span then, with status
 * ERROR and `error.type` {@link CLIENT_GONE_ERROR_TYPE}; a request listener that throws records the
 * exception on the span. Request-derived values are bounded and sensitive query values redacted
 * (see `serverRequestAttributes`).
 * @see OpenTelemetry semantic conventions, "HTTP Server semantic conventions"
 */
export class FastHttpServerInstrumentation extends InstrumentationBase<FastHttpServerInstrumentationConfig> {
  // Set by setConfig(), which the base constructor calls before class fields exist: no initializers.
  declare private values: RequestValuePolicy;
  declare private incomingTrace: IncomingTracePolicy;

  /** @param config - options and `enabled` (default true: it patches `Server.prototype.emit` now) */
  constructor(config: FastHttpServerInstrumentationConfig = {}) {
    // Created disabled, then enabled here: the base constructor's enable() would run before this
    // class is set up.
    super(NAME, TRACER_VERSION ?? '0.0.0', { ...config, enabled: false });
    this.setConfig(config);
    if (this.getConfig().enabled !== false) this.enable();
  }

  protected init(): InstrumentationNodeModuleDefinition[] {
    // node:http is patched as it loads (see enable()), not through a module hook;
    // node:https when it is required (or, for an ES module's import, by the preload: see whenHttpsLoaded).
    return [
      new InstrumentationNodeModuleDefinition(
        'https',
        ['*'],
        (exports: { Server: { prototype: ServerPrototype } }) => {
          this.patch(exports.Server.prototype, 'https');
          return exports;
        },
        (exports?: { Server: { prototype: ServerPrototype } }) => {
          if (exports) unwrap(exports.Server.prototype, 'emit', SITES.https);
        },
      ),
    ];
  }

  override setConfig(config: FastHttpServerInstrumentationConfig = {}): void {
    super.setConfig(config);
    this.values = {
      redact: queryNameMatcher(config.redactQueryParams ?? DEFAULT_REDACTED_QUERY_PARAMS),
      limit: config.requestValueLengthLimit ?? DEFAULT_REQUEST_VALUE_LENGTH_LIMIT,
    };
    this.incomingTrace = config.incomingTrace ?? 'continue';
    routeLimit = this.values.limit;
  }

  /**
   * Wraps `Server.prototype.emit` of node:http and of node:https, each now if it is loaded, else as it loads (a
   * process or worker thread that serves no HTTP does not load them: bench, a one-line script and a worker's start),
   * and listens for finished responses.
   */
  override enable(): void {
    if (this.isEnabled()) return;
    super.enable();
    whenBuiltinLoaded('http', () => {
      // Idempotent (wrap): a disable and enable before node:http loaded queue this twice.
      if (!this.isEnabled()) return;
      const http = builtin('http');
      this.patch(http.Server.prototype, 'http');
      patchEventContext(http);
    });
    if (isHttpsLoaded()) this.patch(builtin('https').Server.prototype, 'https');
    subscribe(RESPONSE_FINISH, onResponseFinish);
  }

  /** Puts `Server.prototype.emit` back (requests from then on get no span) and stops listening. */
  override disable(): void {
    if (!this.isEnabled()) return;
    super.disable();
    // Not loaded: nothing was patched, and loading it here would cost what enable() spared.
    const http = isBuiltinLoaded('http') ? builtin('http') : undefined;
    unwrap(http?.Server.prototype, 'emit', SITES.http);
    if (http) unpatchEventContext(http);
    if (isHttpsLoaded()) unwrap(builtin('https').Server.prototype, 'emit', SITES.https);
    unsubscribe(RESPONSE_FINISH, onResponseFinish);
  }

  override setMeterProvider(): void {
    // No metrics: recording them on every request is a cost nobody asked for.
  }

  private patch(prototype: ServerPrototype, scheme: 'http' | 'https'): void {
    const self = this;
    wrap(
      prototype,
      'emit',
      SITES[scheme],
      (original) =>
        function emit(this: unknown, event: string | symbol, req?: unknown, res?: unknown): boolean {
          // Other events pass through untouched (with all their arguments).
          if (event !== 'request') return original.apply(this, arguments as unknown as [string | symbol, ...unknown[]]);
          const request = req as IncomingMessage;
          const response = res as TracedResponse;
          const incoming = incomingParent(request.headers, self.incomingTrace);
          let parent = incoming.parent;
          const requestId = acceptRequestId(request.headers['x-request-id']);
          if (requestId !== undefined) parent = parent.setValue(REQUEST_ID_KEY, requestId);
          const tracer = self.tracer;
          const attributes = serverRequestAttributes(request, scheme, self.values);
          const span = tracer.startSpan(request.method ?? 'GET', { kind: SpanKind.SERVER, attributes, links: incoming.links }, parent);
          response[kSpan] = span;
          response.on('close', onResponseClose);
          const ctx = withRouteMetadata(trace.setSpan(parent, span), span, response);
          bindEventContext(request, response, ctx);
          let returned = false;
          // The app's stack gains only this function's frame (context.with would add three more).
          const restore = swapContext(ctx);
          try {
            const result = restore ? original.apply(this, arguments as unknown as [string | symbol, ...unknown[]]) : context.with(ctx, original, this, event, req, res);
            returned = true;
            return result;
          } finally {
            restore?.();
            // No catch and rethrow: Node.js would report our line as where the app's error was thrown.
            if (!returned) handlerThrew(span);
          }
        },
    );
  }
}
