import type { Attributes, AttributeValue, Context, Exception, HrTime, Link, SpanContext, SpanKind, SpanStatus, TimeInput } from '@opentelemetry/api';
import { diag, SpanStatusCode } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { hrTime, isAttributeValue, isTimeInput, isTimeInputHrTime, millisToHrTime, sanitizeAttributes } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, Span, SpanLimits, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { epochAnchor, epochHrTime, monotonicMs, monotonicNow, toMonotonicMs } from './monotonic-clock.js';

/** What every span of one tracer shares; made once per tracer, so a span holds one reference. */
export interface LeanTracerState {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly spanProcessor: SpanProcessor;
  readonly spanLimits: SpanLimits;
  /** `spanLimits.attributeValueLengthLimit`, 0 when unset (as the SDK's span has it). */
  readonly valueLengthLimit: number;
  /** `spanLimits.attributeCountLimit`, `Infinity` when unset. */
  readonly countLimit: number;
}

const hasOwn = Object.prototype.hasOwnProperty;
const inspectCustom = Symbol.for('nodejs.util.inspect.custom');
/** `endTime` and `duration` until the span ends (the SDK's values), shared: replaced, never written, at end. */
const NOT_ENDED: HrTime = Object.freeze([0, 0]) as unknown as HrTime;
const NO_DURATION: HrTime = Object.freeze([-1, -1]) as unknown as HrTime;

/**
 * A recording span that is both the API's `Span` and the SDK's `ReadableSpan`, behaving as the
 * SDK's own span (`SpanImpl` of `@opentelemetry/sdk-trace` 2.x) does, field for field: limits,
 * truncation, dropped counts, the `diag` messages for use after end, the order of the span
 * processors' `onStart` / `onEnding` / `onEnd`. It saves the per-span work that changes nothing:
 * attributes its tracer has already validated are taken as they are (one object, not a copy per
 * step), start and end times are read once from the process's anchored monotonic clock
 * (`epochHrTime`: ns resolution, never backwards; the SDK's are `Date.now()` to the millisecond), and
 * no per-span metric attribute objects or closures are made (the SDK records `otel.sdk.span.*` on a
 * no-op meter unless a MeterProvider is given, and tracehook gives none).
 * Values from user code (`setAttribute`, `addEvent`, links) are validated as the specification
 * requires: invalid keys and values are dropped with a `diag` warning.
 * @see OpenTelemetry specification, Tracing SDK, "Span" and "Span Limits" (https://opentelemetry.io/docs/specs/otel/trace/sdk/#span-limits)
 */
export class LeanSpan implements Span, ReadableSpan {
  name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  attributes: Attributes;
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  readonly startTime: HrTime;
  endTime: HrTime = NOT_ENDED;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  private readonly _spanContext: SpanContext;
  private readonly _state: LeanTracerState;
  private _duration: HrTime = NO_DURATION;
  private _ended = false;
  private _attributesCount: number;
  private _droppedAttributesCount = 0;
  private _droppedEventsCount = 0;
  private _droppedLinksCount = 0;
  /** {@link monotonicMs} at start: converts `performance.now()`-based time inputs to epoch time. */
  private readonly _monotonicStart: number;
  /**
   * The code that started this span ends it before returning (tracehook's PRODUCER span of a
   * `postMessage`, recorded after the post): nothing can leave it open, so OpenSpanProcessor does
   * not track it.
   */
  readonly _endCertain: boolean;

  /**
   * Starts the span and calls the span processors' `onStart`.
   * @param attributes validated attributes (no null values, arrays already copies), owned by the span from here on
   * @param attributeCount the number of keys of `attributes`
   * @param links links as given; validated here
   * @param endCertain see {@link _endCertain}
   */
  constructor(
    state: LeanTracerState,
    context: Context,
    spanContext: SpanContext,
    name: string,
    kind: SpanKind,
    parentSpanContext: SpanContext | undefined,
    attributes: Attributes,
    attributeCount: number,
    links: Link[] | undefined,
    startTime: TimeInput | undefined,
    endCertain = false,
  ) {
    const now = monotonicNow();
    this._state = state;
    this._spanContext = spanContext;
    this._monotonicStart = toMonotonicMs(now);
    this._endCertain = endCertain;
    this.name = name;
    this.kind = kind;
    this.parentSpanContext = parentSpanContext;
    if (links !== undefined) for (const link of links) this.addLink(link);
    // The process's monotonic clock on one epoch anchor: ns resolution, never before an earlier span's start.
    this.startTime = startTime == null ? epochHrTime(now) : this._getTime(startTime);
    this.resource = state.resource;
    this.instrumentationScope = state.scope;
    if (attributeCount <= state.countLimit && state.valueLengthLimit === Infinity) {
      this.attributes = attributes;
      this._attributesCount = attributeCount;
    } else {
      this.attributes = {};
      this._attributesCount = 0;
      for (const key in attributes) this.setAttribute(key, attributes[key]!);
    }
    state.spanProcessor.onStart(this, context);
  }

  spanContext(): SpanContext {
    return this._spanContext;
  }

  setAttribute(key: string, value?: AttributeValue): this {
    // Setting the value an ended span already holds loses nothing: no warning. Next.js sets `http.route`
    // on the span it runs in after the response ended it (NextRouteSpanProcessor set it before).
    if (value == null || (this._ended && this.attributes[key] === value) || this._isSpanEnded()) return this;
    if (key.length === 0) {
      diag.warn(`Invalid attribute key: ${key}`);
      return this;
    }
    if (!isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      return this;
    }
    const isNewKey = !hasOwn.call(this.attributes, key);
    if (isNewKey && this._attributesCount >= this._state.countLimit) {
      this._droppedAttributesCount++;
      return this;
    }
    this.attributes[key] = this._truncateToSize(value);
    if (isNewKey) this._attributesCount++;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (hasOwn.call(attributes, key)) this.setAttribute(key, attributes[key]);
    }
    return this;
  }

  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, timeStamp?: TimeInput): this {
    if (this._isSpanEnded()) return this;
    const { eventCountLimit, attributePerEventCountLimit } = this._state.spanLimits;
    if (eventCountLimit === 0) {
      diag.warn('No events allowed.');
      this._droppedEventsCount++;
      return this;
    }
    if (eventCountLimit !== undefined && this.events.length >= eventCountLimit) {
      if (this._droppedEventsCount === 0) diag.debug('Dropping extra events.');
      this.events.shift();
      this._droppedEventsCount++;
    }
    if (isTimeInput(attributesOrStartTime)) {
      if (!isTimeInput(timeStamp)) timeStamp = attributesOrStartTime;
      attributesOrStartTime = undefined;
    }
    const limited = this._limitAttributes(attributesOrStartTime, attributePerEventCountLimit);
    this.events.push({ name, attributes: limited.attributes, time: this._getTime(timeStamp), droppedAttributesCount: limited.dropped });
    return this;
  }

  addLink(link: Link): this {
    if (this._isSpanEnded()) return this;
    const { linkCountLimit, attributePerLinkCountLimit } = this._state.spanLimits;
    if (linkCountLimit === 0) {
      this._droppedLinksCount++;
      return this;
    }
    if (linkCountLimit !== undefined && this.links.length >= linkCountLimit) {
      if (this._droppedLinksCount === 0) diag.debug('Dropping extra links.');
      this.links.shift();
      this._droppedLinksCount++;
    }
    const limited = this._limitAttributes(link.attributes, attributePerLinkCountLimit);
    const processed: Link = { context: link.context };
    if (limited.count > 0) processed.attributes = limited.attributes;
    if (limited.dropped > 0) processed.droppedAttributesCount = limited.dropped;
    this.links.push(processed);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this._isSpanEnded()) return this;
    if (status.code === SpanStatusCode.UNSET) return this;
    if (this.status.code === SpanStatusCode.OK) return this;
    const next: SpanStatus = { code: status.code };
    if (status.code === SpanStatusCode.ERROR) {
      if (typeof status.message === 'string') next.message = status.message;
      else if (status.message != null) diag.warn(`Dropping invalid status.message of type '${typeof status.message}', expected 'string'`);
    }
    this.status = next;
    return this;
  }

  updateName(name: string): this {
    if (this._isSpanEnded()) return this;
    this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this._isSpanEnded()) {
      diag.error(`${this.name} ${this._spanContext.traceId}-${this._spanContext.spanId} - You can only call end() on a span once.`);
      return;
    }
    // The usual case reads the clock of the start time: the duration is the monotonic one.
    let end = endTime === undefined ? epochHrTime() : this._getTime(endTime);
    let seconds = end[0] - this.startTime[0];
    let nanos = end[1] - this.startTime[1];
    if (nanos < 0) {
      seconds -= 1;
      nanos += 1e9;
    }
    if (seconds < 0) {
      diag.warn('Inconsistent start and end time, startTime > endTime. Setting span duration to 0ms.', this.startTime, end);
      end = this.startTime.slice() as HrTime;
      seconds = 0;
      nanos = 0;
    }
    this.endTime = end;
    this._duration = [seconds, nanos];
    if (this._droppedEventsCount > 0) diag.warn(`Dropped ${this._droppedEventsCount} events because eventCountLimit reached`);
    if (this._droppedLinksCount > 0) diag.warn(`Dropped ${this._droppedLinksCount} links because linkCountLimit reached`);
    const processor = this._state.spanProcessor;
    if (processor.onEnding) processor.onEnding(this);
    this._ended = true;
    processor.onEnd(this);
  }

  isRecording(): boolean {
    return this._ended === false;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') {
      attributes['exception.message'] = exception;
    } else if (exception) {
      if (exception.code) attributes['exception.type'] = exception.code.toString();
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    // The minimum the specification asks of an exception event.
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
    else diag.warn(`Failed to record an exception ${exception}`);
  }

  get duration(): HrTime {
    return this._duration;
  }

  get ended(): boolean {
    return this._ended;
  }

  get droppedAttributesCount(): number {
    return this._droppedAttributesCount;
  }

  get droppedEventsCount(): number {
    return this._droppedEventsCount;
  }

  get droppedLinksCount(): number {
    return this._droppedLinksCount;
  }

  /** What `util.inspect` and `console.log` show: the ReadableSpan fields, as for the SDK's span (not the shared tracer state). */
  [inspectCustom](depth: number, options: { depth?: number | null } | undefined, inspect?: (value: unknown, options: unknown) => string): unknown {
    if (depth < 0) return '[LeanSpan]';
    const resource: Attributes = {};
    for (const [key, value] of this.resource.getRawAttributes()) {
      if (value != null && typeof (value as { then?: unknown }).then !== 'function') resource[key] ??= value as AttributeValue;
    }
    const payload = {
      name: this.name,
      kind: this.kind,
      spanContext: this._spanContext,
      parentSpanContext: this.parentSpanContext,
      status: this.status,
      startTime: this.startTime,
      endTime: this.endTime,
      duration: this._duration,
      ended: this._ended,
      attributes: this.attributes,
      events: this.events,
      links: this.links,
      droppedAttributesCount: this._droppedAttributesCount,
      droppedEventsCount: this._droppedEventsCount,
      droppedLinksCount: this._droppedLinksCount,
      instrumentationScope: this.instrumentationScope,
      resource: { attributes: resource },
    };
    if (typeof inspect !== 'function' || !options) return payload;
    return `LeanSpan ${inspect(payload, { ...options, depth: options.depth == null ? options.depth : options.depth - 1 })}`;
  }

  private _isSpanEnded(): boolean {
    if (this._ended) {
      const { traceId, spanId } = this._spanContext;
      const error = new Error(`Operation attempted on ended Span {traceId: ${traceId}, spanId: ${spanId}}`);
      diag.warn(`Cannot execute the operation on ended Span {traceId: ${traceId}, spanId: ${spanId}}`, error);
    }
    return this._ended;
  }

  /** Event and link attributes: validated, truncated, at most `limit` of them. */
  private _limitAttributes(input: Attributes | undefined, limit: number | undefined): { attributes: Attributes; count: number; dropped: number } {
    const sanitized = sanitizeAttributes(input);
    const attributes: Attributes = {};
    let count = 0;
    let dropped = 0;
    for (const key in sanitized) {
      if (limit !== undefined && count >= limit) {
        dropped++;
        continue;
      }
      attributes[key] = this._truncateToSize(sanitized[key]!);
      count++;
    }
    return { attributes, count, dropped };
  }

  private _truncateToSize(value: AttributeValue): AttributeValue {
    const limit = this._state.valueLengthLimit;
    if (limit <= 0) {
      diag.warn(`Attribute value limit must be positive, got ${limit}`);
      return value;
    }
    if (typeof value === 'string') return value.length <= limit ? value : value.substring(0, limit);
    if (Array.isArray(value)) {
      return (value as unknown[]).map((v) => (typeof v === 'string' && v.length > limit ? v.substring(0, limit) : v)) as AttributeValue;
    }
    return value;
  }

  /** A time input as the SDK's span converts it (performance timestamp, epoch ms, Date, HrTime). */
  private _getTime(input: TimeInput | undefined): HrTime {
    if (typeof input === 'number') {
      const perfNow = performance.now();
      if (input <= perfNow) {
        // A performance.now() timestamp: moved to this process's epoch clock with this span's offset.
        const perfStart = perfNow - (monotonicMs() - this._monotonicStart);
        const anchor = epochAnchor();
        const epochAtStart = this._monotonicStart + anchor[0] * 1e3 + anchor[1] / 1e6;
        return hrTime(input + (epochAtStart - (perfStart + performance.timeOrigin)));
      }
      return millisToHrTime(input);
    }
    if (input instanceof Date) return millisToHrTime(input.getTime());
    if (isTimeInputHrTime(input)) return input as HrTime;
    return epochHrTime();
  }
}
