import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setContextRoute } from '../instrumentations/routes/http-route.js';

/** The tracer name Next.js creates its spans with (`next/dist/server/lib/trace/tracer.js`). */
const NEXT_SCOPE = 'next.js';

/**
 * The matched route of a Next.js app (`next start`, or `output: 'standalone'`'s `server.js`) handed to
 * the HTTP SERVER span around it. Next.js makes its own spans through `@opentelemetry/api` when a
 * TracerProvider is registered; those of route resolution and handling start with `next.route` (the
 * route template, `/api/users/[id]`). Next.js also sets `http.route` on the span it runs in, but only
 * after the response finished, when that span has ended. So as a Next.js span starts with
 * `next.route`, the route goes into its parent context's RPC metadata, and the SERVER span (fast or
 * stock) is named `METHOD route` with `http.route` as it ends, as for Express or Fastify. Never throws.
 * @see OpenTelemetry semantic conventions, "HTTP Server semantic conventions", `http.route`
 */
export class NextRouteSpanProcessor implements SpanProcessor {
  /** Records a Next.js span's `next.route` as the route of the request its parent context serves. */
  onStart(span: Span, parentContext: Context): void {
    if (span.instrumentationScope.name !== NEXT_SCOPE) return;
    const route = span.attributes['next.route'];
    if (typeof route === 'string') setContextRoute(parentContext, route);
  }

  /** Nothing to do: the route was handed over at start. */
  onEnd(_span: ReadableSpan): void {}

  /** Resolves at once: nothing is buffered. */
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Resolves at once: nothing to release. */
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
