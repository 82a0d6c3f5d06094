import { context, defaultTextMapSetter, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { warnOnce } from '../diag/logger.js';
import { errorMessage } from '../context/span-error.js';
import { adapterFor } from './carrier-adapter.js';

/**
 * Internal helper for the worker and child-process propagation: the propagation fields of `ctx`
 * (default: the active context) as a new plain object, e.g.
 * `{ traceparent: '00-<32 hex>-<16 hex>-01', tracestate: 'k=v', baggage: 'k=v' }`, written by
 * the globally configured propagators. Safe to structured-clone or JSON-encode.
 * @returns undefined when there is nothing to inject (tracing off, no valid span context and no
 *   baggage), so a sender can skip the carrier entirely. Never throws (a failing propagator is
 *   logged once and treated as nothing to inject).
 */
export function injectToCarrier(ctx: Context = context.active()): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  try {
    propagation.inject(ctx, carrier, defaultTextMapSetter);
  } catch (err) {
    warnOnce('propagation', 'inject', `inject failed (${errorMessage(err)}); nothing propagated`);
    return undefined;
  }
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/**
 * Internal helper, the receiving half of {@link injectToCarrier}: the context a carrier describes,
 * built on `base` (default `ROOT_CONTEXT`, so the result depends on the carrier only and a worker
 * message starts from a clean trace stack). Accepts any carrier {@link extractContext} accepts.
 * @returns `base` when the carrier is missing or holds nothing valid. Never throws.
 */
export function contextFromCarrier(carrier: object | null | undefined, base: Context = ROOT_CONTEXT): Context {
  if (carrier === null || typeof carrier !== 'object') return base;
  try {
    return propagation.extract(base, carrier, adapterFor(carrier));
  } catch (err) {
    warnOnce('propagation', 'extract', `extract failed (${errorMessage(err)}); carrier ignored`);
    return base;
  }
}
