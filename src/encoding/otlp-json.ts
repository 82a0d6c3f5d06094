import type { Attributes, Link } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { InstrumentationScope } from '@opentelemetry/core';
import { ByteLine } from './byte-line.js';
import { hrTimeToNanoString } from './hrtime.js';
import type { RequestEncoding } from './request-encoding.js';
import { complete, stepwise } from './request-encoding.js';
import { fitsInt64, groupSpans, scopeNameKey, spanFlags } from './span-groups.js';

/**
 * Encodes spans as one OTLP/JSON `ExportTraceServiceRequest` straight from the `ReadableSpan`
 * interface, with no request objects in between: the same string, byte for byte, as
 * `JSON.stringify` of @opentelemetry/otlp-transformer's request with its JSON encoder (the text
 * `JsonTraceSerializer.serializeRequest` encodes as UTF-8): hex trace and span ids, times as
 * decimal nanosecond strings, integers as `intValue` and other numbers as `doubleValue` (NaN and
 * ±Infinity as `null`, −0 as `0`), `Uint8Array` values as base64 `bytesValue`, absent optional
 * fields left out. Spans are grouped by resource, then by scope name, version and schema URL, in
 * first-seen order, as otlp-transformer does.
 *
 * Two deliberate differences, so that every line is valid for a strict OTLP/JSON reader and says
 * what the protobuf encoding says (otlp-transformer's JSON text does neither): a lone surrogate in
 * a string becomes U+FFFD, as UTF-8 encoding (protobuf) makes it; an integer beyond 2^53 is an
 * `intValue` decimal string (proto3 JSON's int64 form: a number there is not exact), and one
 * outside int64 (1e20) a `doubleValue`.
 * @returns the request as a JSON string (no trailing newline)
 * @see OpenTelemetry specification, "OTLP/HTTP" (JSON Protobuf Encoding)
 */
export function encodeOtlpJson(spans: readonly ReadableSpan[]): string {
  scratch.reset();
  encodeOtlpJsonInto(spans, scratch);
  const json = scratch.buffer.toString('utf8', 0, scratch.length);
  scratch.reset();
  return json;
}

/** {@link encodeOtlpJson}'s request as UTF-8 bytes, in a Buffer of its own (an HTTP body). */
export function encodeOtlpJsonBytes(spans: readonly ReadableSpan[]): Buffer {
  scratch.reset();
  encodeOtlpJsonInto(spans, scratch);
  const bytes = Buffer.from(scratch.buffer.subarray(0, scratch.length));
  scratch.reset();
  return bytes;
}

/** The line {@link encodeOtlpJson} and {@link encodeOtlpJsonBytes} encode in (each copies out of it). */
const scratch = new ByteLine();

/**
 * {@link encodeOtlpJson}'s request appended to `out` as UTF-8, the same bytes: each span is one
 * string written in place, the resource's and the scope's opening pieces are encoded once per
 * resource attributes and scope object and copied.
 */
export function encodeOtlpJsonInto(spans: readonly ReadableSpan[], out: ByteLine): void {
  complete(writeRequest(spans, out));
}

/**
 * {@link encodeOtlpJsonBytes}'s request encoded a few spans at a time ({@link RequestEncoding}): the same bytes,
 * in a line of the encoding's own, so the turns in between may encode other requests.
 */
export function encodeOtlpJsonStepwise(spans: readonly ReadableSpan[]): RequestEncoding {
  return stepwise(
    pool,
    () => new ByteLine(),
    (line) => writeRequest(spans, line),
    (line) => Buffer.from(line.buffer.subarray(0, line.length)),
  );
}

const pool: ByteLine[] = [];

/** Appends the request of `spans` to `out`, pausing after each span. */
function* writeRequest(spans: readonly ReadableSpan[], out: ByteLine): Generator<void, void, void> {
  out.text('{"resourceSpans":[');
  let firstResource = true;
  for (const [resource, byScope] of groupSpans(spans, scopeNameKey)) {
    if (!firstResource) out.byte(COMMA);
    firstResource = false;
    const head = resourceHead(resource);
    out.bytes(head.bytes);
    let firstScope = true;
    for (const group of byScope.values()) {
      const scope = group[0].instrumentationScope;
      if (!firstScope) out.byte(COMMA);
      firstScope = false;
      out.bytes(scopeHead(scope));
      for (let i = 0; i < group.length; i++) {
        out.text(i === 0 ? span(group[i]) : `,${span(group[i])}`);
        yield;
      }
      out.text(`]${optional('schemaUrl', scope.schemaUrl)}}`);
    }
    out.text(head.tail);
  }
  out.text(']}');
}

const COMMA = 0x2c;

type Resource = ReadableSpan['resource'];

/** A resource's encoded opening (`{"resource":{…},"scopeSpans":[`) and its closing text. */
interface ResourceHead {
  /** The attributes object it was encoded from: a resource whose attributes changed is encoded again. */
  attributes: Attributes;
  bytes: Buffer;
  tail: string;
}

const resourceHeads = new WeakMap<Resource, ResourceHead>();

function resourceHead(resource: Resource): ResourceHead {
  const attrs = resource.attributes;
  let head = resourceHeads.get(resource);
  if (head?.attributes === attrs) return head;
  const schemaUrl = resource.schemaUrl ? `,"schemaUrl":${quote(resource.schemaUrl)}` : '';
  head = { attributes: attrs, bytes: Buffer.from(`{"resource":{"attributes":${attributes(attrs)},"droppedAttributesCount":0${schemaUrl}},"scopeSpans":[`), tail: `]${schemaUrl}}` };
  // Attributes still waiting for an asynchronous detector are not final: encoded each time until they are.
  if ((resource as { asyncAttributesPending?: boolean }).asyncAttributesPending !== true) resourceHeads.set(resource, head);
  return head;
}

const scopeHeads = new WeakMap<InstrumentationScope, Buffer>();

/** A scope's encoded opening, `{"scope":{…},"spans":[`, once per scope object. */
function scopeHead(scope: InstrumentationScope): Buffer {
  let head = scopeHeads.get(scope);
  if (head) return head;
  let text = `{"scope":{"name":${quote(scope.name)}${optional('version', scope.version)}`;
  const scopeAttributes = (scope as { attributes?: Attributes }).attributes;
  if (scopeAttributes && Object.keys(scopeAttributes).length > 0) {
    text += `,"attributes":${attributes(scopeAttributes)},"droppedAttributesCount":${number((scope as { droppedAttributesCount?: number }).droppedAttributesCount ?? 0)}`;
  }
  head = Buffer.from(`${text}},"spans":[`);
  scopeHeads.set(scope, head);
  return head;
}

function span(s: ReadableSpan): string {
  const ctx = s.spanContext();
  const parentId = s.parentSpanContext?.spanId;
  let out = `{"traceId":${quote(ctx.traceId)},"spanId":${quote(ctx.spanId)}`;
  if (parentId) out += `,"parentSpanId":${quote(parentId)}`;
  out += optional('traceState', ctx.traceState?.serialize());
  out += `,"name":${quote(s.name)},"kind":${s.kind == null ? 0 : number(s.kind + 1)}`;
  out += `,"startTimeUnixNano":"${hrTimeToNanoString(s.startTime)}","endTimeUnixNano":"${hrTimeToNanoString(s.endTime)}"`;
  out += `,"attributes":${attributes(s.attributes)}${optionalNumber('droppedAttributesCount', s.droppedAttributesCount)},"events":[`;
  const events = s.events;
  for (let i = 0; i < events.length; i++) out += (i === 0 ? '' : ',') + event(events[i]);
  out += `]${optionalNumber('droppedEventsCount', s.droppedEventsCount)},"status":{"code":${number(s.status.code)}${optional('message', s.status.message)}},"links":[`;
  const links = s.links;
  for (let i = 0; i < links.length; i++) out += (i === 0 ? '' : ',') + link(links[i]);
  return `${out}]${optionalNumber('droppedLinksCount', s.droppedLinksCount)},"flags":${spanFlags(ctx.traceFlags, s.parentSpanContext?.isRemote)}}`;
}

function event(e: TimedEvent): string {
  return `{"attributes":${e.attributes ? attributes(e.attributes) : '[]'},"name":${quote(e.name)},"timeUnixNano":"${hrTimeToNanoString(e.time)}","droppedAttributesCount":${number(e.droppedAttributesCount || 0)}}`;
}

function link(l: Link): string {
  const c = l.context;
  return `{"attributes":${l.attributes ? attributes(l.attributes) : '[]'},"spanId":${quote(c.spanId)},"traceId":${quote(c.traceId)}${optional('traceState', c.traceState?.serialize())},"droppedAttributesCount":${number(l.droppedAttributesCount || 0)},"flags":${spanFlags(c.traceFlags, c.isRemote)}}`;
}

function attributes(attrs: Attributes): string {
  let out = '[';
  let first = true;
  for (const key of Object.keys(attrs)) {
    out += `${first ? '' : ','}${keyPrefix(key)}${anyValue(attrs[key])}}`;
    first = false;
  }
  return `${out}]`;
}

/** The most distinct attribute keys whose encoded prefix is kept: semantic-convention keys are a few dozen. */
const MAX_CACHED_KEYS = 1024;
const keyPrefixes = new Map<string, string>();

/** `{"key":"<key>","value":` of an attribute key, made once per key (property keys are internalized strings: V8 keeps their hash). */
function keyPrefix(key: string): string {
  let prefix = keyPrefixes.get(key);
  if (prefix === undefined) {
    prefix = `{"key":${quote(key)},"value":`;
    if (keyPrefixes.size < MAX_CACHED_KEYS) keyPrefixes.set(key, prefix);
  }
  return prefix;
}

/** otlp-transformer's `toAnyValue`, written out: what it cannot type becomes `{}`. */
function anyValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${quote(value)}}`;
    case 'number':
      if (Number.isSafeInteger(value)) return `{"intValue":${number(value)}}`;
      return fitsInt64(value) ? `{"intValue":"${BigInt(value)}"}` : `{"doubleValue":${number(value)}}`;
    case 'boolean':
      return value ? '{"boolValue":true}' : '{"boolValue":false}';
  }
  if (value instanceof Uint8Array) return `{"bytesValue":"${Buffer.from(value).toString('base64')}"}`;
  if (Array.isArray(value)) {
    let out = '{"arrayValue":{"values":[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + anyValue(value[i]);
    return `${out}]}}`;
  }
  if (typeof value === 'object' && value !== null) {
    let out = '{"kvlistValue":{"values":[';
    let first = true;
    for (const key of Object.keys(value)) {
      out += `${first ? '' : ','}${keyPrefix(key)}${anyValue((value as Record<string, unknown>)[key])}}`;
      first = false;
    }
    return `${out}]}}`;
  }
  return '{}';
}

/** What JSON.stringify escapes in a string: control characters, `"`, `\\`, and surrogates (when lone). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * A string as JSON.stringify writes it, lone surrogates made U+FFFD (`toWellFormed`, Node.js ≥ 20):
 * quoted as is when nothing in it needs an escape, else JSON.stringify itself. One regular-expression test rather than a `charCodeAt` loop: the strings
 * of real spans come in several representations (sliced ids, concatenated names, internalized
 * keys), which made the loop's property loads megamorphic: half the encoding's time on real spans.
 */
function quote(s: unknown): string {
  if (typeof s !== 'string') return JSON.stringify(s) ?? 'null';
  return NEEDS_ESCAPE.test(s) ? JSON.stringify((s as WellFormable).toWellFormed()) : `"${s}"`;
}

/** ES2024's `String.prototype.toWellFormed`, beyond this build's ES2023 library types. */
type WellFormable = string & { toWellFormed(): string };

/** A number as JSON.stringify writes it (NaN and ±Infinity as `null`); anything else through JSON.stringify. */
function number(n: unknown): string {
  if (typeof n === 'number') return Number.isFinite(n) ? `${n}` : 'null';
  return JSON.stringify(n) ?? 'null';
}

/** `,"key":value`, or nothing where JSON.stringify would leave the property out (undefined). */
function optional(key: string, value: unknown): string {
  if (typeof value === 'string') return `,"${key}":${quote(value)}`;
  if (value === undefined) return '';
  const json = JSON.stringify(value);
  return json === undefined ? '' : `,"${key}":${json}`;
}

function optionalNumber(key: string, value: unknown): string {
  return typeof value === 'number' ? `,"${key}":${number(value)}` : optional(key, value);
}
