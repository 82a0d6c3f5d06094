import type { Attributes, Context, HrTime, Link, Span as ApiSpan, SpanContext, SpanOptions, Tracer } from '@opentelemetry/api';
import { context as apiContext, diag, INVALID_SPAN_CONTEXT, SamplingDecision, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { isAttributeValue, isTracingSuppressed, sanitizeAttributes } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { IdGenerator, Sampler, SamplingResult, SpanLimits, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { LeanTracerState } from './lean-span.js';
import { LeanSpan } from './lean-span.js';
import { ParentBasedAlwaysOnSampler } from './sampler.js';

const SAMPLED = { decision: SamplingDecision.RECORD_AND_SAMPLED } as const;
const NOT_SAMPLED = { decision: SamplingDecision.NOT_RECORD } as const;

/** The options the SDK's TracerProvider hands each of its tracers (`_tracerOptions` in SDK 2.x). */
export interface LeanTracerOptions {
  resource: Resource;
  sampler: Sampler;
  spanLimits: SpanLimits;
  idGenerator: IdGenerator;
  spanProcessor: SpanProcessor;
}

/**
 * A tracer whose recording spans are {@link LeanSpan}s. It decides as the SDK's `Tracer` does:
 * `root` drops the parent, a context with tracing suppressed gets a non-recording span with the
 * invalid span context, a valid parent gives the trace id and trace state, the sampler sees the
 * validated attributes and links and may add attributes and a trace state, and `NOT_RECORD`
 * gives a non-recording span that still propagates the ids. Attributes are validated once, into
 * the object the span keeps.
 * @see OpenTelemetry specification, Tracing SDK, "Sampling" (https://opentelemetry.io/docs/specs/otel/trace/sdk/#sampling)
 */
export class LeanTracer implements Tracer {
  private readonly state: LeanTracerState;
  private readonly sampler: Sampler;
  private readonly ids: IdGenerator;
  /** The sampler is the default parent-based always-on: decided here from the parent's flag. */
  private readonly parentBasedAlwaysOn: boolean;

  constructor(scope: InstrumentationScope, options: LeanTracerOptions) {
    const limits = options.spanLimits;
    this.state = {
      resource: options.resource,
      scope,
      spanProcessor: options.spanProcessor,
      spanLimits: limits,
      valueLengthLimit: limits.attributeValueLengthLimit ?? 0,
      countLimit: limits.attributeCountLimit ?? Infinity,
    };
    this.sampler = options.sampler;
    this.parentBasedAlwaysOn = options.sampler instanceof ParentBasedAlwaysOnSampler;
    this.ids = options.idGenerator;
  }

  startSpan(name: string, options: SpanOptions = {}, context: Context = apiContext.active()): ApiSpan {
    if (options.root) context = trace.deleteSpan(context);
    const parentSpan = trace.getSpan(context);
    if (isTracingSuppressed(context)) {
      diag.debug('Instrumentation suppressed, returning Noop Span');
      return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    }
    const parent = parentSpan?.spanContext();
    const spanId = this.ids.generateSpanId();
    let validParent: SpanContext | undefined;
    let traceId: string;
    let traceState;
    // A lean span's context was made valid here; others (remote, wrapped, another SDK's) are checked.
    if (parent === undefined || (!(parentSpan instanceof LeanSpan) && !trace.isSpanContextValid(parent))) {
      traceId = this.ids.generateTraceId();
    } else {
      traceId = parent.traceId;
      traceState = parent.traceState;
      validParent = parent;
    }
    const kind = options.kind ?? SpanKind.INTERNAL;
    const links: Link[] | undefined = options.links === undefined || options.links.length === 0 ? undefined : options.links.map(sanitizeLink);
    let attributes: Attributes = {};
    let count = validateInto(options.attributes, attributes);
    const result: SamplingResult = !this.parentBasedAlwaysOn
      ? this.sampler.shouldSample(context, traceId, name, kind, attributes, links ?? [])
      : validParent === undefined || (validParent.traceFlags & TraceFlags.SAMPLED) !== 0
        ? SAMPLED
        : NOT_SAMPLED;
    traceState = result.traceState ?? traceState;
    const traceFlags = result.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    const spanContext: SpanContext = { traceId, spanId, traceFlags, traceState };
    if (result.decision === SamplingDecision.NOT_RECORD) {
      diag.debug('Recording is off, propagating context in a non-recording span');
      return trace.wrapSpanContext(spanContext);
    }
    if (!this.parentBasedAlwaysOn) {
      // A sampler may change the attributes it was given and add its own: validated again, as the SDK does.
      const merged = Object.assign(attributes, result.attributes);
      attributes = {};
      count = validateInto(merged, attributes);
    }
    return new LeanSpan(this.state, context, spanContext, name, kind, validParent, attributes, count, links, options.startTime);
  }

  /**
   * Whether {@link recordSpan} may be used: the sampler is the default parent-based always-on, so a
   * span's sampling follows its parent's flag and can be known before the span is made.
   */
  get decidesByParent(): boolean {
    return this.parentBasedAlwaysOn;
  }

  /** A new span id (16 lowercase hex chars, valid), for a span {@link recordSpan} makes later. */
  newSpanId(): string {
    return this.ids.generateSpanId();
  }

  /**
   * Makes a span of tracehook's own (a messaging span) whose ids were decided beforehand: the carrier
   * naming it is built, and the message posted, before the span is recorded. Only with
   * {@link decidesByParent}, and for a caller that has already checked the parent (a tracer's span,
   * or a `traceparent` it validated) and that sampling is on (the parent is sampled).
   * @param attributes valid attributes (non-empty keys, primitive values), handed over: the span keeps this object
   * @param count the number of keys of `attributes`
   * @param context the parent context the span processors' `onStart` see
   * @param parent the parent's span context, valid and sampled; undefined for a root span
   * @param spanId from {@link newSpanId}
   * @param startTime default now
   * @param endCertain the caller ends the span before returning (it is not tracked as open, see OpenSpanProcessor)
   */
  recordSpan(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    count: number,
    context: Context,
    parent: SpanContext | undefined,
    spanId: string,
    startTime: HrTime | undefined,
    endCertain: boolean,
  ): LeanSpan {
    const spanContext: SpanContext = { traceId: parent?.traceId ?? this.ids.generateTraceId(), spanId, traceFlags: TraceFlags.SAMPLED, traceState: parent?.traceState };
    return new LeanSpan(this.state, context, spanContext, name, kind, parent, attributes, count, undefined, startTime, endCertain);
  }

  startActiveSpan<F extends (span: ApiSpan) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(name: string, options: SpanOptions, context: Context, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(name: string, arg2?: SpanOptions | F, arg3?: Context | F, arg4?: F): ReturnType<F> | undefined {
    let options: SpanOptions | undefined;
    let ctx: Context | undefined;
    let fn: F;
    if (arguments.length < 2) return undefined;
    if (arguments.length === 2) fn = arg2 as F;
    else if (arguments.length === 3) {
      options = arg2 as SpanOptions;
      fn = arg3 as F;
    } else {
      options = arg2 as SpanOptions;
      ctx = arg3 as Context;
      fn = arg4 as F;
    }
    const parentContext = ctx ?? apiContext.active();
    const span = this.startSpan(name, options, parentContext);
    return apiContext.with(trace.setSpan(parentContext, span), fn as (span: ApiSpan) => ReturnType<F>, undefined, span);
  }
}

function sanitizeLink(link: Link): Link {
  return { context: link.context, attributes: sanitizeAttributes(link.attributes) };
}

/**
 * Copies the valid attributes of `input` into `out` (arrays as copies) and counts them. Invalid
 * keys and values are dropped with the SDK's `diag` warning, as the specification requires; null
 * and undefined values are left out (the SDK's span skips them too).
 * @returns the number of attributes copied
 */
function validateInto(input: Attributes | undefined, out: Attributes): number {
  let count = 0;
  if (typeof input !== 'object' || input === null) return count;
  for (const key in input) {
    if (!Object.prototype.hasOwnProperty.call(input, key)) continue;
    if (key === '') {
      diag.warn(`Invalid attribute key: ${key}`);
      continue;
    }
    const value = input[key];
    if (value == null) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      out[key] = value;
    } else if (isAttributeValue(value)) {
      out[key] = (value as unknown[]).slice() as typeof value;
    } else {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      continue;
    }
    count++;
  }
  return count;
}
