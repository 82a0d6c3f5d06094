import { context, propagation } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { warnOnce } from '../diag/logger.js';
import { errorMessage } from '../context/span-error.js';
import { adapterFor } from './carrier-adapter.js';
import { contextFromCarrier, injectToCarrier } from './carrier-record.js';

/**
 * Writes the propagation fields of `ctx` (default: the active context) into `carrier`, through the
 * globally configured propagators (the preload sets W3C `traceparent` + `tracestate` and
 * `baggage`, or what `OTEL_PROPAGATORS` names).
 *
 * Carriers: a plain object or HTTP header object (keys written in lower case as the propagators
 * name them); an object with `get`/`set` methods such as gRPC `Metadata`, `Map` or `Headers`;
 * `envCarrier(env)` for `TRACEPARENT`/`TRACESTATE`/`BAGGAGE`.
 *
 * When there is something to inject, the carrier's existing propagation fields (any case) are
 * removed first, so a reused carrier (a copy of `process.env`, forwarded headers) never mixes a new
 * `traceparent` with a stale `tracestate` or `baggage`. When there is nothing to inject (tracing
 * off, no span and no baggage), the carrier is left untouched.
 *
 * @returns the same carrier (a new `{}` when none is given). Never throws: a carrier that rejects a
 *   value is logged once.
 * @see https://www.w3.org/TR/trace-context/ , Ray Serve `create_propagated_context` (whose proxy
 *   dropped tracestate; this keeps it)
 */
export function injectContext<C extends object = Record<string, string>>(carrier?: C, ctx: Context = context.active()): C {
  const target = (carrier ?? {}) as C;
  const fields = injectToCarrier(ctx);
  if (!fields) return target;
  try {
    const adapter = adapterFor(target);
    for (const field of propagation.fields()) adapter.remove(target, field);
    for (const [key, value] of Object.entries(fields)) adapter.set(target, key, value);
  } catch (err) {
    warnOnce('propagation', 'inject-carrier', `the carrier rejected a propagation field (${errorMessage(err)}); it may be incomplete`);
  }
  return target;
}

/**
 * The context described by `carrier` (any carrier {@link injectContext} accepts; header names
 * matched case-insensitively, array values accepted: the first `traceparent`, all `tracestate` and
 * `baggage` values joined), built on `base` (default: the active context, as OpenTelemetry's own
 * `propagation.extract` does). Use it as a parent: `context.with(extractContext(req.headers), fn)`
 * or `tracer.startSpan(name, {}, extractContext(msg))`.
 *
 * @returns a context whose span context is the remote one (`isRemote: true`; trace id 32 lowercase
 *   hex chars, span id 16, flags, tracestate) and whose baggage is the carrier's; `base` unchanged
 *   when the carrier holds nothing valid or tracing is off. Never throws.
 * @see https://opentelemetry.io/docs/specs/otel/context/api-propagators/#extract , Ray Serve
 *   `extract_propagated_context`
 */
export function extractContext(carrier: object | null | undefined, base: Context = context.active()): Context {
  return contextFromCarrier(carrier, base);
}
