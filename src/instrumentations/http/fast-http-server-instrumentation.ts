import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Span, Tracer, TracerProvider, MeterProvider } from '@opentelemetry/api';
import * as api from '@opentelemetry/api';
import type { Instrumentation, InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { IncomingTracePolicy } from '../../config/request-data.js';
import { DEFAULT_REDACTED_QUERY_PARAMS, DEFAULT_REQUEST_VALUE_LENGTH_LIMIT } from '../../config/request-data.js';
import { REQUEST_ID_KEY, acceptRequestId } from '../../context/request-id.js';
import { TRACER_VERSION } from '../../context/tracer.js';
import { CLIENT_GONE_ERROR_TYPE, endClientGone, recordHandlerError } from './client-gone.js';
import { incomingParent } from './incoming-trace.js';
import type { RequestValuePolicy } from './server-attributes.js';
import { applyHttpRoute, withRouteMetadata } from '../routes/http-route.js';
import { serverRequestAttributes } from './server-attributes.js';

// Read once: the API's CommonJS build exports through getters, and each read is a call per request.
const { SpanKind, SpanStatusCode, context, trace } = api;

const kSpan = Symbol('tracehook.http.serverSpan');
const RESPONSE_FINISH = 'http.server.response.finish';
const NAME = '@tracehook/register/http-server';

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
type Patched = { prototype: { emit: Emit } };
type TracedResponse = ServerResponse & { [kSpan]?: Span };

/** Options of {@link FastHttpServerInstrumentation}; each defaults to tracehook's default configuration. */
export interface FastHttpServerOptions {
  /** Query parameter names whose values become `REDACTED` in `url.query` (case-sensitive). */
  redactQueryParams?: readonly string[];
  /** Bound on each request-derived attribute value, UTF-16 code units; default 2048. */
  requestValueLengthLimit?: number;
  /** What an incoming traceparent becomes (`TRACEHOOK_INCOMING_TRACE`); default `continue`. */
  incomingTrace?: IncomingTracePolicy;
}

// A response that closes before 'finish': the client went away (or the socket was destroyed). One
// shared listener, no closure per request.
function onResponseClose(this: TracedResponse): void {
  const span = this[kSpan];
  if (!span) return;
  this[kSpan] = undefined;
  applyHttpRoute(span, this, this.req?.method);
  endClientGone(span, this);
}

/**
 * HTTP and HTTPS SERVER spans at a fraction of the stock instrumentation's cost (TRACEHOOK_HTTP_INSTRUMENTATION=fast,
 * the default; `stock` selects @opentelemetry/instrumentation-http for the server side too).
 *
 * The span starts where the server emits `'request'`: `Server.prototype.emit` is wrapped so the
 * app's request listeners run inside the span's context (an immutable AsyncLocalStorage value:
 * nothing the handler schedules can see another request's span). It ends on the
 * `http.server.response.finish` diagnostics channel; one shared `'close'` listener per response
 * catches the responses that never finish. Incoming
 * `traceparent`/`tracestate`/`baggage` are extracted with the configured propagators and used as
 * `TRACEHOOK_INCOMING_TRACE` says (see `incomingParent`). An `x-request-id` header of at most 128
 * visible ASCII characters becomes the request id of the context (see `withRequestId`).
 * The span is named `METHOD route` with `http.route` when a framework hook set the route in the
 * context's RPC metadata (see `withRouteMetadata`), else the method; a 5xx status sets status ERROR. A
 * response that closes before it finished (the client went away) ends the span then, with status
 * ERROR and `error.type` {@link CLIENT_GONE_ERROR_TYPE}; a request listener that throws records the
 * exception on the span. Request-derived values are bounded and sensitive query values redacted
 * (see `serverRequestAttributes`).
 * @see OpenTelemetry semantic conventions, "HTTP Server semantic conventions"
 */
export class FastHttpServerInstrumentation implements Instrumentation {
  readonly instrumentationName = NAME;
  readonly instrumentationVersion: string = TRACER_VERSION ?? '0.0.0';
  private tracer: Tracer | undefined;
  private provider: TracerProvider = trace.getTracerProvider();
  private readonly originals = new Map<Patched, Emit>();
  private config: InstrumentationConfig = { enabled: true };
  private readonly values: RequestValuePolicy;
  private readonly incomingTrace: IncomingTracePolicy;

  constructor(options: FastHttpServerOptions = {}) {
    this.values = {
      redact: new Set(options.redactQueryParams ?? DEFAULT_REDACTED_QUERY_PARAMS),
      limit: options.requestValueLengthLimit ?? DEFAULT_REQUEST_VALUE_LENGTH_LIMIT,
    };
    this.incomingTrace = options.incomingTrace ?? 'continue';
    this.enable();
  }

  private readonly onFinish = (message: unknown): void => {
    const { response } = message as { response: ServerResponse & { [kSpan]?: Span } };
    const span = response[kSpan];
    if (!span) return;
    response[kSpan] = undefined;
    const status = response.statusCode;
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    applyHttpRoute(span, response, response.req?.method);
    span.end();
  };

  enable(): void {
    if (this.originals.size > 0) return;
    this.patch(require('node:http').Server, 'http');
    this.patch(require('node:https').Server, 'https');
    subscribe(RESPONSE_FINISH, this.onFinish);
  }

  disable(): void {
    for (const [target, emit] of this.originals) target.prototype.emit = emit;
    this.originals.clear();
    unsubscribe(RESPONSE_FINISH, this.onFinish);
  }

  setTracerProvider(provider: TracerProvider): void {
    this.provider = provider;
    this.tracer = undefined;
  }

  setMeterProvider(_provider: MeterProvider): void {
    // No metrics: recording them on every request is a cost nobody asked for.
  }

  setConfig(config: InstrumentationConfig): void {
    this.config = config;
  }

  getConfig(): InstrumentationConfig {
    return this.config;
  }

  private patch(target: Patched, scheme: 'http' | 'https'): void {
    const original = target.prototype.emit;
    this.originals.set(target, original);
    const self = this;
    target.prototype.emit = function emit(this: unknown, event: string | symbol, req?: unknown, res?: unknown): boolean {
      // Other events pass through untouched (with all their arguments).
      if (event !== 'request') return original.apply(this, arguments as unknown as [string | symbol, ...unknown[]]);
      const request = req as IncomingMessage;
      const response = res as TracedResponse;
      const incoming = incomingParent(request.headers, self.incomingTrace);
      let parent = incoming.parent;
      const requestId = acceptRequestId(request.headers['x-request-id']);
      if (requestId !== undefined) parent = parent.setValue(REQUEST_ID_KEY, requestId);
      const tracer = (self.tracer ??= self.provider.getTracer(NAME, self.instrumentationVersion));
      const attributes = serverRequestAttributes(request, scheme, self.values);
      const span = tracer.startSpan(request.method ?? 'GET', { kind: SpanKind.SERVER, attributes, links: incoming.links }, parent);
      response[kSpan] = span;
      response.on('close', onResponseClose);
      try {
        return context.with(withRouteMetadata(trace.setSpan(parent, span), span, response), original, this, event, req, res);
      } catch (err) {
        recordHandlerError(span, err);
        throw err;
      }
    };
  }
}
