// A prototype for issue 30 scope 1 (evaluated in bench/exporter-ring.mjs, not used by src/): a span that ends is
// copied as one compact binary record into a SharedArrayBuffer ring, and one exporter thread per process decodes the
// records and encodes and writes the OTLP/JSON lines. Single producer (the thread that ends spans), single consumer.
//
// Ring: a 128-byte header of Int32 slots (HEAD = next byte the producer writes, TAIL = next byte the consumer reads,
// both offsets into the data area, published with Atomics; DROPPED, CONSUMED spans) and `bytes` of data. Records are
// padded to 4 bytes; a record never straddles the end: a length of 0 (or the end itself) sends the reader to 0.
// The producer never waits: a full ring drops the span (counted), as a full batch queue does.
//
// Record (little-endian): u32 length, u8 kind, u8 status code, u8 flags (bit 0 sampled, 1 has parent, 2 parent
// remote), u8 0, u32×4 start [s, ns], end [s, ns], 32 + 16 ASCII hex trace and span id, 16 ASCII hex parent id if
// any, u16 scope ref, name, status message, u16 attribute count, per attribute: u16 key ref, u8 type
// (1 string, 2 integer, 3 double, 4 boolean), value (string; f64; f64; u8). A string is u16 byte length + UTF-8.
// Key and scope refs are interned per producer: a ref with bit 15 set defines the ref (its string, or the scope's
// name and version strings, follow) the first time, so a repeated key is 2 bytes. Nothing is allocated per span.
// Arrays, events and links are not carried (the hello-world and messaging spans have none; a record marks
// them dropped).

export const HEAD = 0;
/** On its own cache line (64 bytes on): the consumer's stores to it do not evict the producer's HEAD. */
export const TAIL = 16;
export const DROPPED = 2;
export const CONSUMED = 3;
export const STOP = 4;
const HEADER_BYTES = 128;
/** The most one record may take; a span that would not fit is dropped. */
const MAX_RECORD = 16 * 1024;
const DEFINE = 0x8000;

/** A ring of `bytes` (a multiple of 4) of data in a new SharedArrayBuffer. */
export function createRing(bytes = 16 * 1024 * 1024) {
  return new SharedArrayBuffer(HEADER_BYTES + bytes);
}

export class RingWriter {
  constructor(sab) {
    this.header = new Int32Array(sab, 0, HEADER_BYTES / 4);
    this.buf = Buffer.from(sab, HEADER_BYTES);
    this.view = new DataView(sab, HEADER_BYTES);
    this.cap = this.buf.length;
    this.head = Atomics.load(this.header, HEAD);
    this.keys = new Map();
    this.scopes = new Map();
    this.p = 0;
    this.limit = 0;
  }

  /** Copies `span` (a ReadableSpan) into the ring; false when it was dropped (ring full or record too large). */
  write(span) {
    const cap = this.cap;
    let head = this.head;
    const tail = Atomics.load(this.header, TAIL);
    // Never filled up to the tail: head === tail means empty.
    const room = tail > head ? tail - head - 4 : cap - head - (tail === 0 ? 4 : 0);
    if (room < MAX_RECORD) {
      if (tail <= head && tail > MAX_RECORD + 4) {
        this.view.setUint32(head, 0, true);
        head = 0;
      } else return this.drop();
    }
    const buf = this.buf;
    const view = this.view;
    const ctx = span.spanContext();
    const parent = span.parentSpanContext;
    let p = head + 4;
    this.limit = head + MAX_RECORD;
    buf[p] = span.kind;
    buf[p + 1] = span.status.code;
    buf[p + 2] = (ctx.traceFlags & 1) | (parent ? 2 : 0) | (parent?.isRemote ? 4 : 0);
    buf[p + 3] = 0;
    const st = span.startTime;
    const et = span.endTime;
    view.setUint32(p + 4, st[0], true);
    view.setUint32(p + 8, st[1], true);
    view.setUint32(p + 12, et[0], true);
    view.setUint32(p + 16, et[1], true);
    p = ascii(buf, p + 20, ctx.traceId);
    p = ascii(buf, p, ctx.spanId);
    if (parent) p = ascii(buf, p, parent.spanId);
    const scope = span.instrumentationScope;
    let scopeRef = this.scopes.get(scope);
    if (scopeRef === undefined) {
      scopeRef = this.scopes.size;
      this.scopes.set(scope, scopeRef);
      view.setUint16(p, scopeRef | DEFINE, true);
      this.p = p + 2;
      if (!this.str(scope.name) || !this.str(scope.version ?? '')) return this.drop();
    } else {
      view.setUint16(p, scopeRef, true);
      this.p = p + 2;
    }
    if (!this.str(span.name) || !this.str(span.status.message ?? '')) return this.drop();
    const countAt = this.p;
    this.p += 2;
    let count = 0;
    const attrs = span.attributes;
    for (const key in attrs) {
      const value = attrs[key];
      let type;
      switch (typeof value) {
        case 'string':
          type = 1;
          break;
        case 'number':
          type = Number.isInteger(value) ? 2 : 3;
          break;
        case 'boolean':
          type = 4;
          break;
        default:
          continue; // arrays: not carried by the prototype
      }
      if (this.p + 16 > this.limit) return this.drop();
      let ref = this.keys.get(key);
      if (ref === undefined) {
        ref = this.keys.size;
        this.keys.set(key, ref);
        view.setUint16(this.p, ref | DEFINE, true);
        this.p += 2;
        if (!this.str(key)) return this.drop();
      } else {
        view.setUint16(this.p, ref, true);
        this.p += 2;
      }
      buf[this.p++] = type;
      if (type === 1) {
        if (!this.str(value)) return this.drop();
      } else if (type === 4) buf[this.p++] = value ? 1 : 0;
      else {
        view.setFloat64(this.p, value, true);
        this.p += 8;
      }
      count++;
    }
    view.setUint16(countAt, count, true);
    const end = (this.p + 3) & ~3;
    view.setUint32(head, end - head, true);
    this.head = end >= cap ? 0 : end;
    Atomics.store(this.header, HEAD, this.head);
    return true;
  }

  /** u16 length + UTF-8 at `this.p`: short ASCII strings by a loop (a call into C++ costs more), the rest by `Buffer#write`. */
  str(s) {
    const buf = this.buf;
    const p = this.p + 2;
    const n = s.length;
    if (p + 3 * n > this.limit) return false;
    let i = 0;
    if (n <= 48) {
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p + i] = c;
      }
    }
    const bytes = i === n ? n : i + buf.write(s.slice(i), p + i, 'utf8');
    this.view.setUint16(this.p, bytes, true);
    this.p = p + bytes;
    return true;
  }

  drop() {
    Atomics.add(this.header, DROPPED, 1);
    return false;
  }
}

/** The 48 or 64 hex characters of ids, as ASCII. */
function ascii(buf, p, s) {
  for (let i = 0; i < s.length; i++) buf[p + i] = s.charCodeAt(i);
  return p + s.length;
}

const NO_DROPS = 0;

/** A decoded record, shaped as the ReadableSpan the repo's encoder reads. */
class RecordSpan {
  constructor(name, kind, ctx, parent, startTime, endTime, attributes, status, resource, scope) {
    this.name = name;
    this.kind = kind;
    this._ctx = ctx;
    this.parentSpanContext = parent;
    this.startTime = startTime;
    this.endTime = endTime;
    this.attributes = attributes;
    this.status = status;
    this.events = [];
    this.links = [];
    this.resource = resource;
    this.instrumentationScope = scope;
    this.droppedAttributesCount = NO_DROPS;
    this.droppedEventsCount = NO_DROPS;
    this.droppedLinksCount = NO_DROPS;
    this.ended = true;
  }

  spanContext() {
    return this._ctx;
  }

  get duration() {
    return [this.endTime[0] - this.startTime[0], this.endTime[1] - this.startTime[1]];
  }
}

/** The exporter thread's side: decodes records into span objects (allocating there is fine: it is not the app's thread). */
export class RingReader {
  constructor(sab, resource) {
    this.header = new Int32Array(sab, 0, HEADER_BYTES / 4);
    this.buf = Buffer.from(sab, HEADER_BYTES);
    this.view = new DataView(sab, HEADER_BYTES);
    this.cap = this.buf.length;
    this.tail = Atomics.load(this.header, TAIL);
    this.resource = resource;
    this.keys = [];
    this.scopes = [];
  }

  /** Decodes up to `max` records into `out`; returns how many. Frees their space. */
  read(out, max) {
    const head = Atomics.load(this.header, HEAD);
    let n = 0;
    while (this.tail !== head && n < max) {
      if (this.tail >= this.cap || this.view.getUint32(this.tail, true) === 0) {
        this.tail = 0;
        continue;
      }
      const len = this.view.getUint32(this.tail, true);
      out.push(this.decode(this.tail + 4));
      this.tail += len;
      if (this.tail >= this.cap) this.tail = 0;
      n++;
    }
    Atomics.store(this.header, TAIL, this.tail);
    return n;
  }

  decode(p) {
    const buf = this.buf;
    const view = this.view;
    const kind = buf[p];
    const code = buf[p + 1];
    const flags = buf[p + 2];
    const startTime = [view.getUint32(p + 4, true), view.getUint32(p + 8, true)];
    const endTime = [view.getUint32(p + 12, true), view.getUint32(p + 16, true)];
    p += 20;
    const ctx = { traceId: buf.latin1Slice(p, p + 32), spanId: buf.latin1Slice(p + 32, p + 48), traceFlags: flags & 1 };
    p += 48;
    let parent;
    if (flags & 2) {
      parent = { traceId: ctx.traceId, spanId: buf.latin1Slice(p, p + 16), traceFlags: flags & 1, isRemote: (flags & 4) !== 0 };
      p += 16;
    }
    this.p = p;
    const scopeRef = this.u16();
    if (scopeRef & DEFINE) this.scopes[scopeRef & ~DEFINE] = { name: this.str(), version: this.str() || undefined };
    const scope = this.scopes[scopeRef & ~DEFINE];
    const name = this.str();
    const message = this.str();
    const count = this.u16();
    const attributes = {};
    for (let i = 0; i < count; i++) {
      const ref = this.u16();
      if (ref & DEFINE) this.keys[ref & ~DEFINE] = this.str();
      const key = this.keys[ref & ~DEFINE];
      const type = buf[this.p++];
      if (type === 1) attributes[key] = this.str();
      else if (type === 4) attributes[key] = buf[this.p++] === 1;
      else {
        attributes[key] = view.getFloat64(this.p, true);
        this.p += 8;
      }
    }
    const status = message ? { code, message } : { code };
    return new RecordSpan(name, kind, ctx, parent, startTime, endTime, attributes, status, this.resource, scope);
  }

  u16() {
    const v = this.view.getUint16(this.p, true);
    this.p += 2;
    return v;
  }

  str() {
    const n = this.u16();
    const s = this.buf.utf8Slice(this.p, this.p + n);
    this.p += n;
    return s;
  }
}

/** A span object from a flat record posted by `postMessage` (bench/encode.mjs's hand-off), for the 'message' worker. */
export function recordSpan(r, resource, scopes) {
  let scope = scopes.get(r.scope);
  if (scope === undefined) scopes.set(r.scope, (scope = { name: r.scope, version: r.version }));
  const ctx = { traceId: r.traceId, spanId: r.spanId, traceFlags: 1 };
  const parent = r.parentSpanId ? { traceId: r.traceId, spanId: r.parentSpanId, traceFlags: 1, isRemote: false } : undefined;
  return new RecordSpan(r.name, r.kind, ctx, parent, r.startTime, r.endTime, r.attributes, r.status, resource, scope);
}
